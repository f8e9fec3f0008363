"""The sync planner over plain data: no database, milliseconds."""

from dataclasses import replace

from memadmin.core.contextdb import UpstreamMemory
from memadmin.core.hashing import normalized_hash
from memadmin.interop.planning.plan import ADOPTED, BACK, CHANGED, plan_sync
from memadmin.interop.planning.values import upstream_values

P = "git:" + "a" * 40
CATEGORIES = {P: frozenset({"PROJECT_RULES", "NAMING"})}


def memory(id: int, content: str | None = None, **fields) -> UpstreamMemory:
    content = content or f"Fact {id}."
    values = {
        "id": id,
        "project_path": P,
        "category": "PROJECT_RULES",
        "content": content,
        "normalized_hash": normalized_hash(content),
        "importance": 50,
        "scope": "project",
        "shareable": 0,
        "source_session_id": None,
        "source_type": "historian",
        "seen_count": 1,
        "retrieval_count": 0,
        "first_seen_at": 1,
        "created_at": 1,
        "updated_at": 1,
        "last_seen_at": 1,
        "last_retrieved_at": None,
        "status": "active",
        "expires_at": None,
        "verification_status": "unverified",
        "verified_at": None,
        "classified_at": None,
        "superseded_by_memory_id": None,
        "merged_from": None,
        "metadata": None,
        "mural_cue": None,
        "mural_cue_hash": None,
        "mural_cue_at": None,
        "mural_cue_rejection_count": 0,
    }
    values.update(fields)
    return UpstreamMemory(**values)


def row(pk: int, upstream: UpstreamMemory | None, upstream_id=None, **changes) -> tuple:
    """Return memadmin's row for an upstream memory as the service loads it."""
    values = list(upstream_values(upstream, (None, ())))
    names = ("project", "category", "content", "normalized_hash")
    for name, value in changes.items():
        values[names.index(name)] = value
    *fields, _, _ = values
    return (pk, upstream_id, *fields, None, [])


def plan(memories, existing=(), store_ids=None, upstream_of_pk=None, categories=CATEGORIES):
    return plan_sync(
        memories=list(memories),
        store_ids=frozenset(store_ids if store_ids is not None else [m.id for m in memories]),
        existing=list(existing),
        upstream_of_pk=upstream_of_pk or {},
        categories=categories,
        now=99,
    )


def test_rows_memadmin_lacks_are_created():
    """Every row new to memadmin is planned as a creation."""
    result = plan([memory(1), memory(2)])
    assert [upstream_id for upstream_id, _ in result.creates] == [1, 2]
    assert result.counts[P].new == 2


def test_a_row_equal_to_its_memory_is_unchanged():
    """A row whose values match memadmin's is left alone."""
    first = memory(1)
    result = plan([first], existing=[row(10, first, upstream_id=1)], upstream_of_pk={10: 1})
    assert (result.unchanged, result.updates, result.creates) == (1, [], [])


def test_a_changed_row_is_an_update_naming_its_fields():
    """A row whose text changed upstream is an update of the same memory."""
    before = memory(1)
    after = memory(1, "Fact one, edited.", seen_count=2)
    result = plan([after], existing=[row(10, before, upstream_id=1)], upstream_of_pk={10: 1})
    (update,) = result.updates
    assert (update.pk, update.kind) == (10, CHANGED)
    assert update.changed_fields == ("content", "normalized_hash", "seen_count")
    assert update.key_changes


def test_references_compare_in_upstream_ids():
    """A successor stored as our key equals upstream's id for it: no change."""
    old = memory(1, superseded_by_memory_id=2, status="archived")
    new = memory(2)
    existing = [
        (*row(10, old, upstream_id=1)[:-2], 11, []),
        row(11, new, upstream_id=2),
    ]
    result = plan([old, new], existing=existing, upstream_of_pk={10: 1, 11: 2})
    assert result.unchanged == 2


def test_a_local_memory_with_the_same_text_is_adopted():
    """A new row equal to a memory written in memadmin takes it over instead of duplicating it."""
    upstream = memory(5)
    result = plan([upstream], existing=[row(10, upstream, upstream_id=None)])
    (update,) = result.updates
    assert (update.pk, update.upstream_id, update.kind) == (10, 5, ADOPTED)
    assert result.creates == []


def test_rows_gone_upstream_are_planned_once():
    """A synced row missing from the store is gone; one already marked is not marked again."""
    kept, lost, marked = memory(1), memory(2), memory(3)
    existing = [
        row(10, kept, upstream_id=1),
        row(11, lost, upstream_id=2),
        (*row(12, marked, upstream_id=3)[:-3], 50, None, []),
    ]
    result = plan([kept], existing=existing, upstream_of_pk={10: 1, 11: 2, 12: 3})
    assert [gone.pk for gone in result.gone] == [11]
    assert result.counts[P].gone == 1


def test_a_marked_row_that_returns_is_back():
    """A row marked gone that is in the store again is unmarked."""
    returned = memory(3)
    existing = [(*row(12, returned, upstream_id=3)[:-3], 50, None, [])]
    result = plan([returned], existing=existing, upstream_of_pk={12: 3})
    assert [update.kind for update in result.updates] == [BACK]


def test_a_row_of_another_project_in_the_store_is_not_gone():
    """A row the store still holds elsewhere (outside a filtered sync) is not marked gone."""
    elsewhere = memory(7)
    result = plan(
        [], existing=[row(10, elsewhere, upstream_id=7)], store_ids=[7], upstream_of_pk={10: 7}
    )
    assert result.gone == []


def test_unknown_categories_are_counted_not_refused():
    """A category the pack lacks is flagged and the row still created."""
    result = plan([memory(1, category="ODD_ONE"), memory(2)])
    assert result.flagged[P] == {"ODD_ONE": 1}
    assert len(result.creates) == 2
    assert result.problems == []


def test_a_missing_successor_is_a_warning():
    """A successor the store does not hold is dropped with a warning naming it."""
    result = plan([memory(1, superseded_by_memory_id=9, merged_from=(8,))])
    assert [(w.column, w.row_id) for w in result.warnings] == [
        ("superseded_by_memory_id", 1),
        ("merged_from", 1),
    ]


def test_two_rows_with_one_text_are_a_problem():
    """Rows sharing category and hash (possible only without upstream's UNIQUE) are refused."""
    first = memory(1, "Same.")
    second = replace(memory(2, "same."), normalized_hash=first.normalized_hash)
    (problem,) = plan([first, second]).problems
    assert (problem.row_id, problem.column) == (2, "normalized_hash")


def test_bad_identities_and_empty_text_are_problems():
    """An identity upstream never writes and empty text are each named once."""
    result = plan(
        [memory(1, project_path="/home/me"), memory(2, project_path="/home/me"), memory(3, " ")],
        categories={},
    )
    assert sorted((p.row_id, p.column) for p in result.problems) == [
        (1, "project_path"),
        (3, "content"),
    ]


def test_two_memadmin_memories_claiming_one_upstream_id_are_a_problem():
    """Two of memadmin's rows linked to one upstream id refuse the sync, naming both rows."""
    upstream = memory(4)
    other = "git:" + "c" * 40
    existing = [
        row(10, upstream, upstream_id=4),
        row(11, upstream, upstream_id=4, project=other),
    ]
    result = plan([upstream], existing=existing, upstream_of_pk={10: 4, 11: 4})
    (problem,) = result.problems
    assert (problem.table, problem.row_id, problem.column) == ("memories", 4, "id")
    assert problem.problem == (
        "is claimed by two memadmin memories (#10 and #11) in different projects; "
        "delete one of them"
    )


def test_a_new_row_identical_to_another_memadmin_memory_is_a_problem_naming_it():
    """A new row with the text of a memadmin memory linked to another row the store still
    holds (outside this sync) is refused, naming that memory."""
    elsewhere = memory(7, "Same text.")
    new = memory(5, "Same text.")
    existing = [row(10, elsewhere, upstream_id=7)]
    result = plan([new], existing=existing, upstream_of_pk={10: 7}, store_ids=[5, 7])
    (problem,) = result.problems
    assert (problem.row_id, problem.column) == (5, "normalized_hash")
    assert problem.problem == (
        "is identical to memadmin memory #10 in PROJECT_RULES, which is not this row's memory; "
        "edit or delete one of the two, then sync again"
    )


def test_every_unchanged_row_is_counted():
    """The summary counts each unchanged row of a project."""
    first, second = memory(1), memory(2)
    existing = [row(10, first, upstream_id=1), row(11, second, upstream_id=2)]
    result = plan([first, second], existing=existing, upstream_of_pk={10: 1, 11: 2})
    assert (result.unchanged, result.counts[P].unchanged) == (2, 2)

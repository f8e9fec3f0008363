"""memadmin never changes a field the person did not change.

Each edit form is read from its page and posted back the way a browser sends it. For memories
holding every odd value a synced store really holds (a category outside the project's pack, a
legacy category, no importance, importance 100, an expired, permanent, archived or superseded
row), an untouched post changes nothing anywhere: memadmin's row, its history and audit
trail, the store's row, its `memory_mutation_log`, the project's epoch and the pending marks;
with write-through on and in pending mode. A text edit changes the text and nothing else.

What the sync does not keep cannot reach a form: a store holding importance 0, or an unknown
scope, status or source type, is refused whole with the row named
(tests/interop/planning/test_sync_refusals.py, and `test_the_sync_refuses_what_no_form_could_keep`
below).
"""

import sqlite3

import pytest
from django.contrib.admin.models import LogEntry
from django.core.exceptions import ValidationError
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.interop.models import StoreBase
from memadmin.interop.writing.runs import SyncRefused
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from tests.html_tree import find, find_all, posted, text
from tests.upstream_store import BASE_TIME_MS, PROJECT, build_store, make_row

pytestmark = pytest.mark.django_db

DAY_MS = 86_400_000

# Each odd row a real store holds, by the name the tests are parametrized with. The synced
# project gets the magic-context pack: OPS_RULES (the ops-six pack's) is outside it.
ODD_ROWS = {
    "outside the pack": {"category": "OPS_RULES"},
    "outside the pack, lower case": {"category": "project_rules"},
    "legacy category": {"category": "WORKFLOW_RULES"},
    "no importance": {"importance": None},
    "importance 100": {"importance": 100},
    "importance 1": {"importance": 1},
    "expired": {"expires_at": BASE_TIME_MS - DAY_MS},
    "expiring": {"expires_at": BASE_TIME_MS + 30 * DAY_MS},
    "permanent": {"status": "permanent"},
    "archived": {"status": "archived", "metadata_json": '{"archive_reason": "retired"}'},
    "superseded": {"status": "archived", "superseded_by_memory_id": 1},
    "ecosystem, shareable": {"scope": "ecosystem", "shareable": 1},
    "universe, outside the pack": {"scope": "universe", "category": "OPS_RULES"},
}
SUCCESSOR = "Successor: deploys go through scripts/deploy.sh."


def odd_rows() -> list[dict]:
    """Return the store's rows: the successor first (id 1), then one row per odd case."""
    rows = [make_row(content=SUCCESSOR)]
    for n, (name, overrides) in enumerate(ODD_ROWS.items(), start=2):
        rows.append(make_row(content=f"Odd row {n}: {name}.", **overrides))
    return rows


def upstream_id_of(case: str) -> int:
    return 2 + list(ODD_ROWS).index(case)


@pytest.fixture
def odd_store(tmp_path):
    """A real context.db holding every odd row, synced into memadmin."""
    path = build_store(tmp_path / "context.db", rows=odd_rows())
    context_db_sync(path=path)
    return path


@pytest.fixture(params=["through", "pending"])
def store_mode(request, settings):
    """Write-through on, and pending mode (a server without the file)."""
    settings.MEMADMIN_STORE_WRITES = request.param
    return request.param


def store_rows(path, sql: str, params=()) -> list[dict]:
    connection = sqlite3.connect(path)
    connection.row_factory = sqlite3.Row
    try:
        return [dict(row) for row in connection.execute(sql, params)]
    finally:
        connection.close()


def everything(path, memory: Memory) -> dict:
    """Return every place a save could change, for one memory of the store at ``path``."""
    return {
        "memadmin": Memory.objects.filter(pk=memory.pk).values().get(),
        "history": list(memory.history.values_list("history_id", flat=True)),
        "audit": list(AuditEvent.objects.values_list("pk", flat=True)),
        "base": list(StoreBase.objects.filter(memory=memory).values()),
        "store": store_rows(path, "SELECT * FROM memories ORDER BY id"),
        "mutation_log": store_rows(path, "SELECT * FROM memory_mutation_log ORDER BY id"),
        "project_state": store_rows(path, "SELECT * FROM project_state"),
    }


def edit_form(client, memory: Memory) -> tuple[str, dict]:
    """Return the edit page's form action and what a browser would post, untouched."""
    page = client.get(reverse("memories:edit", args=[memory.pk]))
    assert page.status_code == 200
    action = reverse("memories:edit", args=[memory.pk])
    form = find(page.content.decode(), "form", method="post", action=action)
    return action, posted(form)


def synced(case: str) -> Memory:
    return Memory.objects.get(project__identity=PROJECT, upstream_id=upstream_id_of(case))


@pytest.mark.parametrize("case", list(ODD_ROWS))
def test_an_untouched_edit_form_changes_nothing_anywhere(case, odd_store, store_mode, client_as):
    """Posting a memory's edit form back as shown writes nothing, on either side."""
    memory = synced(case)
    before = everything(odd_store, memory)
    client = client_as("editor")
    action, data = edit_form(client, memory)
    response = client.post(action, data)
    assert response.status_code == 302, response.content.decode()
    assert everything(odd_store, memory) == before
    # And the next sync finds nothing to bring in, push or flag as a conflict.
    run = context_db_sync(path=odd_store)
    assert (run.new, run.changed, run.pushed, run.conflicted) == (0, 0, 0, 0)


def test_the_reported_case_keeps_ops_rules(odd_store, client_as):
    """Issue 26: an OPS_RULES memory's form shows OPS_RULES, labelled, and a Save keeps it."""
    memory = synced("outside the pack")
    client = client_as("editor")
    page = client.get(reverse("memories:edit", args=[memory.pk])).content.decode()
    category = find(page, "select", name="category")
    chosen = find(category, "option", selected=True)
    assert chosen.attributes["value"] == "OPS_RULES"
    assert text(chosen) == "OPS_RULES (not in this project's pack)"
    action, data = edit_form(client, memory)
    client.post(action, data)
    memory.refresh_from_db()
    assert memory.category == "OPS_RULES"
    row = store_rows(odd_store, "SELECT category FROM memories WHERE id = ?", (memory.upstream_id,))
    assert row == [{"category": "OPS_RULES"}]
    assert store_rows(odd_store, "SELECT * FROM memory_mutation_log") == []


def changed(before: dict, after: dict) -> set[str]:
    return {name for name in before if before[name] != after[name]}


@pytest.mark.parametrize("case", list(ODD_ROWS))
def test_a_text_edit_changes_the_text_and_nothing_else(
    case, odd_store, store_mode, settings, client_as
):
    """Only the text, its hash and the version move, in memadmin and in the store's row
    (in pending mode, once the next sync pushes the edit)."""
    memory = synced(case)
    before = everything(odd_store, memory)
    client = client_as("editor")
    action, data = edit_form(client, memory)
    response = client.post(action, {**data, "content": f"{memory.content} Edited."})
    assert response.status_code == 302, response.content.decode()
    if store_mode == "pending":
        assert everything(odd_store, memory)["store"] == before["store"]
        settings.MEMADMIN_STORE_WRITES = "through"
        assert context_db_sync(path=odd_store).pushed == 1
    after = everything(odd_store, memory)
    assert changed(before["memadmin"], after["memadmin"]) == {
        "content",
        "normalized_hash",
        "updated_at",
    }
    row = memory.upstream_id - 1
    assert changed(before["store"][row], after["store"][row]) == {
        "content",
        "normalized_hash",
        "updated_at",
    }
    others = [r for n, r in enumerate(after["store"]) if n != row]
    assert others == [r for n, r in enumerate(before["store"]) if n != row]


def test_moving_out_of_a_category_outside_the_pack_is_a_deliberate_choice(
    odd_store, settings, client_as
):
    """A person may move an OPS_RULES memory into a category of the pack."""
    settings.MEMADMIN_STORE_WRITES = "through"
    memory = synced("outside the pack")
    before = everything(odd_store, memory)
    client = client_as("editor")
    action, data = edit_form(client, memory)
    response = client.post(action, {**data, "category": "PROJECT_RULES"})
    assert response.status_code == 302, response.content.decode()
    after = everything(odd_store, memory)
    assert after["memadmin"]["category"] == "PROJECT_RULES"
    assert changed(before["memadmin"], after["memadmin"]) == {"category", "updated_at"}
    row = memory.upstream_id - 1
    assert after["store"][row]["category"] == "PROJECT_RULES"
    assert changed(before["store"][row], after["store"][row]) == {"category", "updated_at"}


def test_an_importance_edit_writes_only_the_importance(odd_store, settings, client_as):
    """A memory with no importance given one: the store's row moves that column and the time."""
    settings.MEMADMIN_STORE_WRITES = "through"
    memory = synced("no importance")
    before = everything(odd_store, memory)
    client = client_as("editor")
    action, data = edit_form(client, memory)
    response = client.post(action, {**data, "importance": "80"})
    assert response.status_code == 302, response.content.decode()
    after = everything(odd_store, memory)
    row = memory.upstream_id - 1
    assert changed(before["memadmin"], after["memadmin"]) == {"importance", "updated_at"}
    assert changed(before["store"][row], after["store"][row]) == {"importance", "updated_at"}
    assert after["store"][row]["importance"] == 80
    assert after["mutation_log"] == before["mutation_log"]  # text changes and archives only


def test_moving_into_a_category_outside_the_pack_is_refused(odd_store, settings, client_as):
    """A memory of the pack cannot be moved into OPS_RULES: refused, nothing written."""
    settings.MEMADMIN_STORE_WRITES = "through"
    memory = Memory.objects.get(project__identity=PROJECT, upstream_id=1)
    before = everything(odd_store, memory)
    client = client_as("editor")
    action, data = edit_form(client, memory)
    response = client.post(action, {**data, "category": "OPS_RULES"})
    assert response.status_code == 400
    assert "OPS_RULES" in response.content.decode()
    assert everything(odd_store, memory) == before


def test_the_sync_refuses_what_no_form_could_keep(tmp_path):
    """Importance 0, an unknown scope, status or source type: the sync names each row."""
    path = build_store(
        tmp_path / "context.db",
        rows=[
            make_row(content="Zero.", importance=0),
            make_row(content="Galaxy.", scope="galaxy"),
            make_row(content="Robot.", source_type="robot"),
            make_row(content="Pending.", status="pending"),
        ],
    )
    with pytest.raises(SyncRefused) as refused:
        context_db_sync(path=path)
    text = str(refused.value)
    for problem in ("0 is outside 1..100", "'galaxy'", "'robot'", "'pending'"):
        assert problem in text
    assert not Memory.objects.exists()


def test_the_service_checks_only_what_changes(odd_store, people):
    """An unchanged category outside the pack passes; changing into one is refused, clearly."""
    ops = synced("outside the pack")
    edited = memory_update(memory=ops, actor=people["editor"], category="OPS_RULES", importance=70)
    assert (edited.category, edited.importance) == ("OPS_RULES", 70)
    plain = Memory.objects.get(project__identity=PROJECT, upstream_id=1)
    with pytest.raises(ValidationError) as refused:
        memory_update(memory=plain, actor=people["editor"], category="OPS_RULES")
    assert "'OPS_RULES' is not a category of" in str(refused.value)
    plain.refresh_from_db()
    assert plain.category == "PROJECT_RULES"


def admin_form(client, url: str) -> dict:
    """Return what a browser posts from an admin change form, untouched."""
    page = client.get(url)
    assert page.status_code == 200
    (form,) = [
        form
        for form in find_all(page.content.decode(), "form", method="post")
        if find_all(form, name="edited_version")
    ]
    return posted(form)


def admin_log() -> list[int]:
    return list(LogEntry.objects.values_list("pk", flat=True))


@pytest.mark.parametrize("case", list(ODD_ROWS))
def test_an_untouched_admin_change_form_changes_nothing_anywhere(
    case, odd_store, store_mode, client_as
):
    """The admin's memory change form, saved untouched, writes nothing, its log included."""
    memory = synced(case)
    before = everything(odd_store, memory), admin_log()
    client = client_as("admin")
    url = f"/admin/memories/memory/{memory.pk}/change/"
    response = client.post(url, admin_form(client, url))
    assert response.status_code == 302, response.content.decode()
    assert (everything(odd_store, memory), admin_log()) == before


def test_a_bulk_move_changes_the_category_of_the_rows_it_moves_and_nothing_else(
    odd_store, store_mode, client_as
):
    """Moving every odd row to PROJECT_RULES moves those outside it (a deliberate choice);
    the rows already there, and every other field, are untouched on both sides."""
    memories = list(Memory.objects.filter(project__identity=PROJECT).order_by("upstream_id"))
    before = {memory.pk: everything(odd_store, memory) for memory in memories}
    client = client_as("editor")
    review = client.post(
        reverse("memories:bulk"),
        {"ids": [m.pk for m in memories], "action": "move", "category": "PROJECT_RULES"},
    )
    assert review.status_code == 200
    form = find(review.content.decode(), "form", method="post", action=reverse("memories:bulk"))
    data = posted(form)
    response = client.post(reverse("memories:bulk"), {**data, "confirm": "1"})
    assert response.status_code == 302, response.content.decode()
    moved = 0
    for memory in memories:
        after = Memory.objects.filter(pk=memory.pk).values().get()
        old = before[memory.pk]["memadmin"]
        row = memory.upstream_id - 1
        store_before = before[memory.pk]["store"][row]
        store_after = store_rows(odd_store, "SELECT * FROM memories WHERE id = ?", (row + 1,))[0]
        if old["category"] == "PROJECT_RULES" or old["superseded_by_id"] is not None:
            assert after == old
            assert store_after == store_before
            continue
        moved += 1
        assert changed(old, after) == {"category", "updated_at"}
        if store_mode == "through":
            assert changed(store_before, store_after) == {"category", "updated_at"}
        else:
            assert store_after == store_before
    assert moved == 4  # OPS_RULES twice, project_rules and WORKFLOW_RULES


def test_undo_of_a_text_edit_keeps_a_category_outside_the_pack(odd_store, store_mode, client_as):
    """The edit's Undo brings the old text back; the unchanged OPS_RULES is not refused."""
    memory = synced("outside the pack")
    client = client_as("editor")
    action, data = edit_form(client, memory)
    page = client.post(action, {**data, "content": "Rewritten."}, follow=True).content.decode()
    (undo,) = find_all(page, "form", class_="undo-form", method="post")
    response = client.post(undo.attributes["action"], follow=True)
    assert response.status_code == 200
    memory.refresh_from_db()
    assert (memory.content, memory.category) == ("Odd row 2: outside the pack.", "OPS_RULES")

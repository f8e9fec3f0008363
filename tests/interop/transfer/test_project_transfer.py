"""Project export and import: a lossless round trip, and refusals that write nothing (both engines)."""

import json

import pytest
from django.core.management import CommandError, call_command

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite, ReferenceSet
from memadmin.composites.reference_services import reference_set_freeze
from memadmin.composites.services import composite_create, composite_cursor_set
from memadmin.curation.merge_services import memory_merge
from memadmin.interop.transfer.export import project_export, project_export_data
from memadmin.interop.transfer.import_services import ImportRefused, project_import
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import category_by_name
from memadmin.taxonomy.services import criteria_override_save
from tests.interop.conftest import PROJECT, rows_for
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db


@pytest.fixture
def rich_project(store):
    """A synced project with local memories, a merge, composites, a reference set, an override."""
    rows = [
        *rows_for(3),
        make_row(content='Ünïcödé and <tags> & "quotes".', category="ODD_ONE"),
        make_row(content="Old.", status="archived", superseded_by_memory_id=1),
        make_row(content="Meta.", metadata_json='{"b": 1, "a": [2, 3]}'),
    ]
    context_db_sync(path=store(rows=rows))
    project = Project.objects.get(identity=PROJECT)
    local = [
        memory_create(project=project, category="NAMING", content=f"Name {n}.", actor="agent")
        for n in range(4)
    ]
    memory_update(memory=local[3], importance=None, actor="agent")
    merged = memory_merge(memories=local[:2], content="Names 0 and 1.", actor="agent")
    head = Memory.objects.get(project=project, upstream_id=1)
    steps = list(Memory.objects.filter(project=project, upstream_id__in=[2, 3]).order_by("pk"))
    sequence = composite_create(
        head=head, type="sequence", members=[*steps, merged], title="Release", actor="agent"
    )
    composite_cursor_set(composite=sequence, position=1, actor="agent")
    composite_create(head=local[2], type="theme", actor="agent")
    reference_set_freeze(composite=sequence, actor="agent", note="for the release agent")
    category = category_by_name(project, "CONSTRAINTS")
    criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": "Limits we cannot move."},
        actor="system",
    )
    project.refresh_from_db()
    return project


def test_export_import_export_gives_identical_bytes(rich_project):
    """Exported, deleted, imported into an empty database and exported again: the same bytes."""
    first = project_export(rich_project)
    Project.objects.all().delete()
    assert Memory.objects.count() == Composite.objects.count() == ReferenceSet.objects.count() == 0
    imported = project_import(raw=first)
    assert project_export(imported) == first


def test_the_export_holds_every_kind_of_block(rich_project):
    """Memories, composites with ordered members, the override and the reference set are there."""
    data = project_export_data(rich_project)
    assert (data["format"], data["version"]) == ("memadmin.project", 1)
    assert data["project"]["pack"]["name"] == "magic-context"
    memories = {memory["key"]: memory for memory in data["memories"]}
    assert len(memories) == 11
    old = next(m for m in data["memories"] if m["content"] == "Old.")
    assert memories[old["superseded_by"]]["upstream_id"] == 1
    merged = next(m for m in data["memories"] if m["content"] == "Names 0 and 1.")
    assert [memories[key]["content"] for key in merged["merged_from"]] == ["Name 0.", "Name 1."]
    sequence = next(c for c in data["composites"] if c["type"] == "sequence")
    assert [memories[key]["upstream_id"] for key in sequence["members"][:2]] == [2, 3]
    assert sequence["cursor"] == 1
    assert [o["category"] for o in data["criteria_overrides"]] == ["CONSTRAINTS"]
    (reference_set,) = data["reference_sets"]
    assert reference_set["composite"] == sequence["key"]
    assert [item["role"] for item in reference_set["items"]][:2] == ["head", "member"]
    assert memories[reference_set["items"][0]["memory"]]["upstream_id"] == 1


def test_import_restores_rows_history_and_audit(rich_project):
    """Each imported memory has one version by "import"; one event records the import."""
    raw = project_export(rich_project)
    Project.objects.all().delete()
    project = project_import(raw=raw)
    memory = Memory.objects.get(project=project, upstream_id=4)
    assert memory.category == "ODD_ONE"
    (version,) = memory.history.all()
    assert (version.history_actor, version.history_type) == ("import", "+")
    assert AuditEvent.objects.filter(action="project_imported", project=project).count() == 1
    naming = category_by_name(project, "CONSTRAINTS")
    assert naming.effective_criteria["definition"] == "Limits we cannot move."


def test_imported_composites_are_made_with_their_members(rich_project):
    """An import makes each composite afresh: its members joined then, nothing changed since."""
    raw = project_export(rich_project)
    Project.objects.all().delete()
    project = project_import(raw=raw)
    composites = Composite.objects.filter(project=project)
    assert composites.count() == 2
    for composite in composites:
        assert composite.members_changed_at is None
        assert {row.joined_at for row in composite.members.all()} <= {composite.made_at}


def test_importing_next_to_the_original_is_refused(rich_project):
    """The project must be new to the database; nothing is written when it is not."""
    raw = project_export(rich_project)
    counts = (Memory.objects.count(), Composite.objects.count())
    with pytest.raises(ImportRefused) as caught:
        project_import(raw=raw)
    assert f"project.identity: a project {PROJECT} already exists" in caught.value.messages[0]
    assert "reference_sets: a reference set" in "\n".join(caught.value.messages)
    assert (Memory.objects.count(), Composite.objects.count()) == counts


def broken(rich_project, change) -> list[str]:
    """Export, delete, apply ``change`` to the document, import; return the problems."""
    data = project_export_data(rich_project)
    Project.objects.all().delete()
    change(data)
    with pytest.raises(ImportRefused) as caught:
        project_import(raw=json.dumps(data))
    assert Project.objects.count() == 0
    assert Memory.objects.count() == 0
    return caught.value.messages


def test_every_problem_is_listed_and_nothing_written(rich_project):
    """A document with several faults lists them all, by path, and writes nothing."""

    def change(data):
        data["memories"][0]["content"] = ""
        data["memories"][1]["importance"] = 500
        data["memories"][2]["superseded_by"] = 999
        data["memories"][3]["surprise"] = True
        data["composites"][0]["members"].append(data["composites"][0]["head"])
        data["criteria_overrides"][0]["category"] = "NOT_THERE"

    problems = broken(rich_project, change)
    assert "memories[0].content: must not be empty" in problems
    assert "memories[1].importance: must be between 1 and 100" in problems
    assert "memories[2].superseded_by: names no memory of the export" in problems
    assert "memories[3].surprise: is not part of the format" in problems
    assert "composites[0].members: holds the head; a head is never its own member" in problems


def test_a_category_the_pack_lacks_in_an_override_is_refused(rich_project):
    """An override must name a category of the pack."""
    problems = broken(
        rich_project, lambda data: data["criteria_overrides"][0].update(category="NOT_THERE")
    )
    assert problems == ["criteria_overrides[0].category: 'NOT_THERE' is not in the pack"]


def test_broken_criteria_in_an_override_are_refused(rich_project):
    """Override criteria are held to the pack's rules."""

    def change(data):
        data["criteria_overrides"][0]["override_criteria"]["definition"] = ""

    (problem,) = broken(rich_project, change)
    assert problem.startswith("criteria_overrides[0].override_criteria: Definition")


def test_duplicate_text_in_one_category_is_refused(rich_project):
    """Two memories with one text in one category are refused by path."""

    def change(data):
        data["memories"][1]["normalized_hash"] = data["memories"][0]["normalized_hash"]

    (problem,) = broken(rich_project, change)
    assert problem.startswith("memories[1].normalized_hash: the same text is already in")


@pytest.mark.parametrize(
    ("raw", "problem"),
    [
        (b"{not json", "document: is not JSON (Expecting property name"),
        (b"\xff\xfe", "document: is not UTF-8 text"),
        (b"[]", "document: must be a JSON object"),
        (b'{"format": "other"}', "format: must be 'memadmin.project'"),
        (b'{"format": "memadmin.project", "version": 2}', "version: 2 is not a version"),
    ],
)
def test_not_an_export_is_refused(db, raw, problem):
    """Text that is not a version 1 export is refused with where it breaks."""
    with pytest.raises(ImportRefused) as caught:
        project_import(raw=raw)
    assert caught.value.messages[0].startswith(problem)


def test_commands_round_trip_through_a_file(rich_project, tmp_path, capsys):
    """`export_project` writes the file `import_project` reads back."""
    target = tmp_path / "project.json"
    call_command("export_project", "--project", PROJECT, "--output", str(target))
    first = target.read_bytes()
    Project.objects.all().delete()
    call_command("import_project", str(target))
    assert f"imported {PROJECT}" in capsys.readouterr().out
    call_command("export_project", "--project", PROJECT, "--output", str(target))
    assert target.read_bytes() == first


def test_import_command_lists_problems(db, tmp_path, capsys):
    """A refused import exits with an error and prints each problem."""
    path = tmp_path / "bad.json"
    path.write_text('{"format": "memadmin.project", "version": 1}')
    with pytest.raises(CommandError, match="import refused, nothing written"):
        call_command("import_project", str(path))
    assert "project: must be a JSON object" in capsys.readouterr().err

"""The Dreamer runs page: each run of magic-context's dreamer, its tasks, and the memories
it changed, read from a real store (`dream_runs`, upstream's DDL)."""

import json

import pytest
from django.urls import reverse

from memadmin.core.contextdb.dream_runs import read_dream_runs
from memadmin.core.contextdb.opening import open_readonly
from memadmin.interop.writing.services import context_db_sync
from memadmin.projects.models import Project
from tests import html_tree
from tests.interop.conftest import OTHER_PROJECT, PROJECT
from tests.interop.write_through.test_store_writes import store_exec
from tests.upstream_store import BASE_TIME_MS, make_row

pytestmark = pytest.mark.django_db

START = BASE_TIME_MS + 1_000_000
TASKS = [
    {"name": "consolidate", "durationMs": 61_500, "resultChars": 420},
    {"name": "verify", "durationMs": 800, "resultChars": 0, "error": "model timed out"},
]


def add_run(path, *, started, finished, tasks, changes=None, project=PROJECT, ok=1, failed=1):
    """Add a `dream_runs` row as upstream's `insertDreamRun` writes it."""
    store_exec(
        path,
        "INSERT INTO dream_runs (project_path, started_at, finished_at, holder_id, tasks_json, "
        "tasks_succeeded, tasks_failed, smart_notes_surfaced, smart_notes_pending, "
        "memory_changes_json) VALUES (?, ?, ?, 'dreamer-7f3a', ?, ?, ?, 2, 1, ?)",
        (project, started, finished, tasks, ok, failed, changes),
    )


@pytest.fixture
def dream_store(store):
    """Rows 1..3 of the project; a run that merged 1 and 2 into 3 (written by the dreamer),
    a later run with malformed JSON, and a run of another project."""
    path = store(
        rows=[
            make_row(content="Use the VPN."),
            make_row(content="The VPN is needed.", status="archived", superseded_by_memory_id=3),
            make_row(
                content="Deploys need the VPN.",
                source_type="dreamer",
                created_at=START + 5_000,
                updated_at=START + 5_000,
            ),
            make_row(content="Tabs.", project_path=OTHER_PROJECT),
        ],
        sessions=[],
    )
    add_run(
        path,
        started=START,
        finished=START + 62_300,
        tasks=json.dumps(TASKS),
        changes=json.dumps({"written": 1, "deleted": 0, "archived": 0, "merged": 2}),
    )
    for target in (1, 2):
        store_exec(
            path,
            "INSERT INTO memory_mutation_log (project_path, mutation_type, target_memory_id, "
            "superseded_by_id, category, queued_at) VALUES (?, 'superseded', ?, 3, 'CONFIG', ?)",
            (PROJECT, target, START + 6_000),
        )
    # A change outside every run's window is not the dreamer's.
    store_exec(
        path,
        "INSERT INTO memory_mutation_log (project_path, mutation_type, target_memory_id, "
        "queued_at) VALUES (?, 'archive', 1, ?)",
        (PROJECT, START + 500_000),
    )
    add_run(path, started=START + 900_000, finished=START + 901_000, tasks="[{oops", changes="7")
    add_run(path, started=START, finished=START + 1, tasks="[]", project=OTHER_PROJECT)
    add_run(
        path,
        started=START - 9_000,
        finished=START - 8_000,
        tasks="[]",
        changes="null",
        ok=0,
        failed=0,
    )
    context_db_sync(path=path)
    return path


def test_the_reader_finds_runs_tasks_and_changed_memories(dream_store):
    """Newest first; tasks parsed; the merge's rows found by time; malformed JSON named."""
    connection = open_readonly(dream_store)
    try:
        found = read_dream_runs(connection, PROJECT)
    finally:
        connection.close()
    assert found.present
    broken, merged, empty = found.runs
    assert (empty.counts, empty.malformed, empty.status) == (None, [], "no tasks")
    assert broken.malformed == ["tasks_json", "memory_changes_json"]
    assert broken.tasks_text == "[{oops"
    assert merged.status == "partly failed"
    assert merged.duration_text == "1 min 2 s"
    assert [(t.name, t.error) for t in merged.tasks] == [
        ("consolidate", ""),
        ("verify", "model timed out"),
    ]
    assert merged.counts == {"written": 1, "deleted": 0, "archived": 0, "merged": 2}
    assert [(c.memory_id, c.words, c.superseded_by) for c in merged.changes] == [
        (3, "written", None),
        (1, "superseded", 3),
        (2, "superseded", 3),
    ]


def test_the_page_lists_each_run_with_its_memories_linked_to_their_history(dream_store, client_as):
    """Every changed memory links to its history page in memadmin."""
    project = Project.objects.get(identity=PROJECT)
    response = client_as("viewer").get(reverse("interop:dream_runs", args=[project.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    rows = html_tree.find_all(html_tree.find(page, "table", class_="dream-runs"), "tr")
    assert len(rows) == 4  # the head and three runs: the other project's is not shown
    merged = html_tree.find(page, "section", id="run-1")
    assert "consolidate" in html_tree.text(merged)
    assert "failed: model timed out" in html_tree.text(merged)
    history = dict(html_tree.links(html_tree.find(merged, "ul", class_="dream-changes")))
    for upstream_id in (1, 2, 3):
        memory = project.memories.get(upstream_id=upstream_id)
        assert history[f"#{memory.display_id}"] == reverse("audit:memory_history", args=[memory.pk])
    assert "archived" not in html_tree.text(merged)


def test_malformed_json_is_shown_as_stored(dream_store, client_as):
    """A run whose JSON columns cannot be read shows them as stored, never an error."""
    project = Project.objects.get(identity=PROJECT)
    page = client_as("viewer").get(reverse("interop:dream_runs", args=[project.pk]))
    broken = html_tree.find(page.content.decode(), "section", id="run-2")
    shown = [html_tree.text(pre) for pre in html_tree.find_all(broken, "pre")]
    assert shown == ["[{oops", "7"]


def test_a_store_without_dream_runs_says_it_has_none(store, client_as):
    """A store without the table (an older plugin): the page says so, no error."""
    path = store(rows=[make_row(content="Use the VPN.")], sessions=[])
    store_exec(path, "DROP TABLE dream_runs")
    context_db_sync(path=path)
    project = Project.objects.get(identity=PROJECT)
    response = client_as("viewer").get(reverse("interop:dream_runs", args=[project.pk]))
    assert response.status_code == 200
    assert "This project's store has no dreamer runs" in response.content.decode()


def test_an_unsynced_project_or_a_missing_store_is_explained(store, client_as, project):
    """A project no store syncs, and a store file gone: a sentence each, no error."""
    viewer = client_as("viewer")
    page = viewer.get(reverse("interop:dream_runs", args=[project.pk])).content.decode()
    assert "is not synced from a store" in page
    path = store(rows=[make_row(content="Use the VPN.")], sessions=[])
    context_db_sync(path=path)
    path.unlink()
    synced = Project.objects.get(identity=PROJECT)
    response = viewer.get(reverse("interop:dream_runs", args=[synced.pk]))
    assert response.status_code == 200
    assert "The store could not be read now" in response.content.decode()


def test_the_project_pages_link_to_the_dreamer_runs(dream_store, client_as):
    """The project's navigation (overview card, ledger, project page) leads to the runs."""
    project = Project.objects.get(identity=PROJECT)
    runs = reverse("interop:dream_runs", args=[project.pk])
    viewer = client_as("viewer")
    for url in (
        reverse("home"),
        reverse("ledger:page", args=[project.pk]),
        reverse("projects:detail", args=[project.pk]),
    ):
        assert ("Dreamer runs", runs) in html_tree.links(viewer.get(url).content.decode()), url

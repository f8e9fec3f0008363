"""The structure assistant on a large project: its suggestions worked out by the background
worker with progress, shown from the run, applied after each is checked against now."""

import pytest
from django_tasks_db.models import DBTaskResult

from memadmin.composites.models import Composite
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.structure.models import SuggestionRun
from memadmin.structure.run_services import run_queue, run_work
from tests.html_tree import attribute, find, find_all

SERVICES = ["api-gateway", "audit-writer", "billing-worker"]


@pytest.fixture
def large(project, settings):
    """A project past the page's own limit (lowered to 5 for the test)."""
    settings.MEMADMIN_STRUCTURE_INLINE_LIMIT = 5
    for week in range(3):
        for service in SERVICES:
            memory_create(
                project=project,
                category="CONFIG_VALUES",
                content=f"{service} request timeout: {10 + week} s, chosen after review {week}",
                actor="system",
            )
    return project


def url(project, tail="") -> str:
    return f"/structure/{project.pk}/suggestions/{tail}"


def test_the_page_asks_for_a_run_then_shows_its_progress_then_its_result(
    large, client_as, django_capture_on_commit_callbacks
):
    client = client_as("editor")
    body = client.get(url(large)).content.decode()
    assert "worked out by the background worker" in body
    assert find_all(body, "form", action=url(large, "run/"))
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url(large, "run/")).status_code == 302
    run = SuggestionRun.objects.get(project=large)
    assert run.state == "queued" and run.requested_by == "editor"
    # Queued in the database for the worker, as a sync is.
    assert DBTaskResult.objects.filter(task_path__endswith="structure_suggest").exists()
    waiting = client.get(url(large)).content.decode()
    assert "Waiting for the worker" in waiting
    assert attribute(find(waiting, "meta", http_equiv="refresh"), "content") == "2"
    run_work(run_id=run.pk)  # what the worker does
    run.refresh_from_db()
    assert run.state == "done" and run.phase == "done" and run.result["suggestions"]
    done = client.get(url(large)).content.decode()
    assert find_all(done, "meta", http_equiv="refresh") == []
    assert "(9 memories)" in done
    assert "The project's memories changed since" not in done


def test_asking_twice_queues_one_run(large, people):
    first = run_queue(project=large, actor=people["editor"])
    assert run_queue(project=large, actor=people["curator"]) == first


def test_a_run_applied_checks_each_suggestion_against_now(large, client_as, people):
    run = run_queue(project=large, actor=people["editor"])
    run_work(run_id=run.pk)
    client = client_as("curator")
    keys = [
        attribute(box, "value")
        for box in find_all(client.get(url(large)).content.decode(), "input", name="chosen")
    ]
    member = Memory.objects.filter(project=large).first()
    memory_update(memory=member, actor="agent", content=member.content + " Checked.")
    body = client.get(url(large)).content.decode()
    assert "The project's memories changed since" in body
    refused = client.post(url(large, "apply/"), {"chosen": keys, "apply": "chosen"})
    assert refused.status_code == 409 and not Composite.objects.filter(project=large).exists()
    # Worked out again, it applies.
    again = run_queue(project=large, actor=people["editor"])
    run_work(run_id=again.pk)
    assert client.post(url(large, "apply/"), {"apply": "all"}).status_code == 302
    assert Composite.objects.filter(project=large).exists()


def test_a_viewer_cannot_ask_for_a_run(large, client_as):
    assert client_as("viewer").post(url(large, "run/")).status_code == 403
    assert not SuggestionRun.objects.exists()

"""`manage.py suggest_structure`: the assistant's suggestions for a project, with their effect
on coverage at each budget, read from the real database; nothing is written."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memadmin.audit.models import AuditEvent
from memadmin.composites.services import composite_create
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create

SERVICES = [
    "api-gateway", "audit-writer", "billing-worker", "backup-runner", "ingest-pipeline",
    "auth-service", "edge-cache", "search-indexer", "report-builder", "media-transcoder",
]  # fmt: skip
SOP = """# Failover of the primary database
1. Page the database on-call and announce the failover in #ops.
2. Freeze deploys for every service that writes to the primary.
3. Promote the replica in the DR region with `pg_ctl promote`.
4. Point the connection pooler at the new primary and reload it."""


@pytest.fixture
def store(project):
    made = [
        memory_create(
            project=project,
            category="CONFIG_VALUES",
            content=f"{service} request timeout: {10 + i} s, chosen to stay under the gateway's "
            f"limit after the {service} incident review of week {i}",
            actor="system",
        )
        for i, service in enumerate(SERVICES * 3)
    ]
    sop = memory_create(project=project, category="OPS_RULES", content=SOP, actor="system")
    return project, made, sop


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("suggest_structure", *args, "--counter", "heuristic", stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_the_command_prints_each_suggestion_and_coverage_before_and_after(store):
    project, made, sop = store
    events = AuditEvent.objects.count()
    out, _ = run("--project", project.identity)
    assert f"sop (sequence, OPS_RULES): fragment #{sop.display_id} into 4 details" in out
    assert "header (" in out and "Failover of the primary database (4 steps): " in out
    assert "family (theme, CONFIG_VALUES): group " in out
    assert (
        "Api-gateway request timeout: … s, chosen to stay" in out and "(3 memories): 10, 0;" in out
    )
    assert "at 1500 tokens: " in out and "at 4000 tokens: " in out
    # Nothing written.
    assert AuditEvent.objects.count() == events
    assert Memory.objects.filter(project=project).count() == len(made) + 1


def test_json_lists_members_headers_and_effects(store):
    project, made, _ = store
    out, _ = run("--project", project.identity, "--json", "--budget", "1500")
    document = json.loads(out)
    assert document["project"] == project.identity
    assert document["header_limit"] == 60
    families = [s for s in document["suggestions"] if s["kind"] == "family"]
    members = {d["memory_id"] for s in families for d in s["details"]}
    assert members <= {m.display_id for m in made}
    assert all(3 <= len(s["details"]) <= 25 for s in document["suggestions"])
    assert all(s["header_tokens"] <= 60 for s in document["suggestions"])
    assert all(s["tokens_now"] > s["header_tokens"] for s in families)
    (effect,) = document["effects"]
    assert effect["budget"] == 1500 and effect["live"] == len(made) + 1
    assert effect["after"]["reached"] >= effect["before"]["reached"]


def test_memories_already_in_a_composite_are_left_alone(store):
    project, made, _ = store
    composite_create(head=made[0], type="theme", members=made[1:], title="All", actor="system")
    out, _ = run("--project", project.identity, "--json")
    families = [s for s in json.loads(out)["suggestions"] if s["kind"] == "family"]
    assert families == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--project", "git:nope"), "No project 'git:nope'"),
        (("--budget", "100"), "between 500 and 20000"),
        (("--header-limit", "3"), "10 tokens or more"),
    ],
)
def test_bad_arguments_are_refused(store, args, message):
    project, _, _ = store
    full = args if args[0] == "--project" else ("--project", project.identity, *args)
    with pytest.raises(CommandError, match=message):
        run(*full)


def test_apply_applies_every_suggestion_and_prints_the_coverage_after(store):
    project, _, sop = store
    out, _ = run("--project", project.identity, "--apply", "--reason", "first structure")
    assert out.startswith("Applied ")
    assert "headers mode: " in out and "live memories reachable" in out
    sop.refresh_from_db()
    assert sop.status == "archived"
    event = AuditEvent.objects.get(action="structure_applied")
    assert (event.actor_label, event.reason) == ("system", "first structure")
    again, _ = run("--project", project.identity, "--apply")
    assert again.startswith("Nothing to apply")

"""What each session really saw: applied revisions (v99 stores) or block ids (older ones),
set against the store now and today's selection."""

import sqlite3

import pytest

from memadmin.core.contextdb.applied import (
    AppliedRow,
    NowRow,
    SessionSeen,
    compare_seen,
)
from memadmin.interop.writing.services import context_db_sync
from memadmin.projects.models import Project
from tests.html_tree import find, find_all, text
from tests.lifecycle_store import add_lifecycle
from tests.upstream_store import PROJECT, build_store, make_row, make_session

pytestmark = pytest.mark.django_db

LONG = " ".join(f"word{n} alpha{n * 7} beta{n * 13}" for n in range(1200))


def store_exec(path, sql, params=()):
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute(sql, params)
    finally:
        connection.close()


def rows():
    return [
        make_row(content="Use the VPN.", category="CONSTRAINTS"),
        make_row(content="Old name.", category="NAMING", status="archived"),
        make_row(content="Release with scripts/release.sh."),
        make_row(content=LONG[:19000], category="NAMING", importance=1),
        make_row(content=LONG[1000:19900], category="ARCHITECTURE", importance=1),
        make_row(content=LONG[2000:19950], category="CONFIG_VALUES", importance=1),
        make_row(content="New since then.", category="PROJECT_RULES"),
    ]


def applied(path, session, memory_id, revision, harness="opencode"):
    store_exec(
        path,
        "INSERT INTO memory_applied_rows (session_id, harness, project_path, memory_id, "
        "applied_revision, projected_text, projected_metadata_json) VALUES (?, ?, ?, ?, ?, '', '{}')",
        (session, harness, PROJECT, memory_id, revision),
    )


def seen_section(client_as, project):
    response = client_as("viewer").get(f"/ledger/{project.pk}/sessions/")
    assert response.status_code == 200
    return find(response.content.decode(), "section", class_="sessions-seen")


def differences(section):
    return {
        text(find(article, "h3")).split()[0]: [text(item) for item in find_all(article, "li")]
        for article in find_all(section, "article", class_="session-seen")
    }


def test_compare_seen_names_each_difference():
    """Edited since, left out now (with the ledger's reason), gone, and new today."""
    seen = SessionSeen(
        "s", "pi", "applied snapshot", [AppliedRow(12, 3), AppliedRow(40, 1), AppliedRow(9, 1)]
    )
    now = {12: NowRow(5, "active"), 40: NowRow(1, "active")}
    assert compare_seen(seen, now, {12: None, 40: "over budget", 7: None}) == [
        "#12 injected at revision 3, now at 5: edited since",
        "#40 injected then, left out now: over budget",
        "#9 injected then, gone from the store now",
        "#7 not injected then, injected now",
    ]


def test_a_lifecycle_store_shows_the_revision_each_was_injected_at(tmp_path, client_as):
    """Applied rows give each memory's revision then; one edited since, one archived,
    one over today's budget and one new today are named."""
    path = add_lifecycle(
        build_store(
            tmp_path / "context.db", rows=rows(), sessions=[make_session(memory_block_ids="[1]")]
        )
    )
    for memory_id in (1, 2, 3, 4, 5, 6):
        applied(path, "ses_applied", memory_id, 1)
    store_exec(path, "UPDATE memories SET revision = 3 WHERE id = 3")
    context_db_sync(path=path)
    section = seen_section(client_as, Project.objects.get(identity=PROJECT))
    assert "opencode" in text(find_all(section, "article", class_="session-seen")[0])
    found = differences(section)
    assert found["ses_applied"][:2] == [
        "#2 injected then, left out now: archived",
        "#3 injected at revision 1, now at 3: edited since",
    ]
    assert "#7 not injected then, injected now" in found["ses_applied"]
    assert any(line.endswith("left out now: over budget") for line in found["ses_applied"])
    # The session without applied rows falls back to its block's ids.
    assert "memory_block_ids" in text(find_all(section, "article", class_="session-seen")[1])


def test_an_older_store_uses_the_blocks_ids(tmp_path, client_as):
    """A v0.47 store (no applied tables): the block's ids, no revision, against today."""
    path = build_store(
        tmp_path / "context.db",
        rows=rows(),
        sessions=[make_session(session_id="ses_old", memory_block_ids="[1, 2, 77]")],
    )
    context_db_sync(path=path)
    section = seen_section(client_as, Project.objects.get(identity=PROJECT))
    found = differences(section)
    assert found["ses_old"][:3] == [
        "#2 injected then, left out now: archived",
        "#77 injected then, gone from the store now",
        "#3 not injected then, injected now",
    ]
    assert "not recorded" in text(section)

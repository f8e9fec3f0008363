"""The Sessions page: what each session was given, each recorded id today, and the diff."""

import pytest

from memadmin.interop.models import SessionBlock
from memadmin.interop.writing.services import context_db_sync
from memadmin.projects.models import Project
from tests.html_tree import find, find_all, text
from tests.interop.workspace_store import API, build_team_store, make_row, make_session
from tests.upstream_store import BASE_TIME_MS

pytestmark = pytest.mark.django_db

RECORDED = "<project-memory>\n<PROJECT_RULES>\n#3: Old wording of the rule.\n</PROJECT_RULES>\n</project-memory>"


@pytest.fixture
def synced(tmp_path):
    """A store whose one session recorded four ids and its block text."""
    rows = [
        make_row(project_path=API, category="CONSTRAINTS", content="API limit: 5 rps."),
        make_row(project_path=API, category="NAMING", content="Old name.", status="archived"),
        make_row(
            project_path=API,
            category="PROJECT_RULES",
            content="New wording of the rule.",
            updated_at=BASE_TIME_MS + 500,
        ),
    ]
    session = make_session(
        session_id="ses_recorded",
        project_path=API,
        memory_block_ids="[1, 2, 3, 77]",
        memory_block_cache=RECORDED,
        memory_block_count=4,
        harness="pi",
        updated_at=BASE_TIME_MS + 100,
    )
    path = build_team_store(tmp_path / "context.db", rows=rows, sessions=[session])
    context_db_sync(path=path)
    return Project.objects.get(identity=API)


def test_the_sync_keeps_each_sessions_harness_and_block_text(synced):
    """The harness and the cached block text are kept beside the session."""
    block = SessionBlock.objects.get(session__session_id="ses_recorded")
    assert block.harness == "pi" and block.block_text == RECORDED and block.project == synced


def test_the_page_shows_recorded_ids_today_and_the_diff(client_as, synced):
    """Each id's memory today (unchanged, archived, changed, gone) and a line diff."""
    response = client_as("viewer").get(f"/ledger/{synced.pk}/sessions/")
    body = response.content.decode()
    assert response.status_code == 200
    (row,) = find_all(find(find(body, "table", class_="sessions"), "tbody"), "tr")
    assert text(find(row, "th", scope="row")) == "ses_recorded"
    cells = [text(cell) for cell in find_all(row, "td")]
    assert cells[0] == "pi"
    assert cells[1].startswith("different from memadmin's current one")
    assert cells[3] == "1 unchanged, 1 archived since, 1 changed since, 1 gone"
    (section,) = find_all(body, "section", class_="session")
    ids = find(find(section, "table", class_="session-ids"), "tbody")
    (gone,) = find_all(ids, "tr", class_="recorded-gone")
    assert text(find_all(gone, "td")[0]) == "#77" and find_all(gone, "a") == []
    diff = find(section, "pre", class_="session-diff")
    assert "-#3: Old wording of the rule." in [
        text(line) for line in find_all(diff, "span", class_="diff-remove")
    ]
    assert "+#3: New wording of the rule." in [
        text(line) for line in find_all(diff, "span", class_="diff-add")
    ]
    assert "Recorded block" in body and "Today's block" in body

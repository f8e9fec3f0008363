"""A memory's provenance from a lifecycle store: observing sessions, links, verification."""

import pytest
from django.urls import reverse

from memadmin.interop.writing.services import context_db_sync
from tests.html_tree import find, text
from tests.interop.write_through.test_store_writes import store_exec, synced
from tests.lifecycle_store import add_lifecycle
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db


@pytest.fixture
def provenance_store(store):
    """Row 3 merged from 1 and 2 (successor links), in conflict with 4, verified, observed
    by two sessions."""
    path = add_lifecycle(
        store(
            rows=[
                make_row(content="Tabs.", status="archived"),
                make_row(content="Tabs only.", status="archived"),
                make_row(content="Tabs only in tables."),
                make_row(content="Spaces everywhere."),
            ],
            sessions=[],
        )
    )
    for source in (1, 2):
        store_exec(
            path,
            "INSERT INTO memory_successor_links (source_id, successor_id, decision_key) "
            "VALUES (?, 3, 'd1')",
            (source,),
        )
    store_exec(
        path,
        "INSERT INTO memory_conflict_links (left_id, right_id, decision_key) VALUES (3, 4, 'd2')",
    )
    for session, at in (("ses_a", 100), ("ses_b", 200)):
        store_exec(
            path,
            "INSERT INTO memory_evidence (memory_id, content_hash, source_session_id, "
            "source_message_id, source_type, observed_at) VALUES (3, 'h', ?, 'msg_1', "
            "'historian', ?)",
            (session, at),
        )
    store_exec(
        path,
        "UPDATE memories SET verify_result = 'confirmed', verify_files_json = '[\"a.py\"]', "
        "verify_commit = 'abc123' WHERE id = 3",
    )
    context_db_sync(path=path)
    return path


def provenance_of(client_as, memory):
    page = client_as("viewer").get(reverse("memories:detail", args=[memory.pk]))
    assert page.status_code == 200
    return page.content.decode()


def test_the_memory_page_shows_sessions_links_and_verification(client_as, provenance_store):
    """The merged memory names both sessions, the two it replaced (linked), its conflict
    and its verification result with commit and files."""
    section = find(provenance_of(client_as, synced(3)), "section", class_="store-provenance")
    shown = text(section)
    assert "session ses_a" in shown and "session ses_b" in shown
    assert "Replaced#1, #2" in shown
    assert "In conflict with#4" in shown
    assert "confirmed at commit abc123, files: a.py" in shown
    body = str(provenance_of(client_as, synced(3)))
    assert f'href="{reverse("memories:detail", args=[synced(1).pk])}"' in body


def test_a_source_names_its_successor(client_as, provenance_store):
    """A merged source says which memory replaced it."""
    section = find(provenance_of(client_as, synced(1)), "section", class_="store-provenance")
    assert "Replaced by#3" in text(section)


def test_malformed_verification_files_are_shown_as_stored(client_as, provenance_store):
    """Unreadable verify_files_json: shown as stored and named, never a 500."""
    store_exec(provenance_store, "UPDATE memories SET verify_files_json = '[oops' WHERE id = 3")
    shown = text(find(provenance_of(client_as, synced(3)), "section", class_="store-provenance"))
    assert "[oops (malformed in the store, shown as stored)" in shown


def test_an_older_store_shows_no_provenance(client_as, store):
    """A v0.47 store has none of these tables: no section, page 200."""
    path = store(rows=[make_row()], sessions=[])
    context_db_sync(path=path)
    assert "store-provenance" not in provenance_of(client_as, synced(1))

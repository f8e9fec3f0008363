"""The stale queue drafts a header again from its details: shown as a word diff against the
header, and "Accept the draft" writes it and marks it synced in one change,
refused when the card shown is stale."""

import pytest
from django.core.cache import cache
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.composites.services import composite_create
from memadmin.core.structure.drafting import draft_family_header
from memadmin.core.tokens import default_counter
from memadmin.headermap.drafts import header_drafts
from memadmin.headermap.models import HeaderSync
from memadmin.headermap.stale_selectors import stale_header
from memadmin.headermap.stale_services import StaleReview, header_accept_draft, header_mark_synced
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import attribute, find, find_all, text

T0 = 1_700_000_000_000
STEPS = [
    "api-gateway request timeout: 30 s, chosen after the review",
    "edge-cache request timeout: 20 s, chosen after the review",
    "billing-worker request timeout: 45 s, chosen after the review",
]


@pytest.fixture(autouse=True)
def fresh_cache():
    cache.clear()


@pytest.fixture
def family(project):
    """A drafted header over three timeouts, synced, then one timeout edited."""
    details = [
        memory_create(
            project=project, category="CONFIG_VALUES", content=t, actor="system", at_ms=T0
        )
        for t in STEPS
    ]
    header = memory_create(
        project=project,
        category="CONFIG_VALUES",
        content=draft_family_header(STEPS, counter=default_counter()),
        actor="system",
        at_ms=T0,
    )
    composite_create(head=header, type="theme", members=details, actor="system", at_ms=T0)
    header_mark_synced(header=header, actor="system", at_ms=T0 + 1000)
    memory_update(
        memory=details[1], actor="agent", content=STEPS[1].replace("20 s", "25 s"), at_ms=T0 + 2000
    )
    return header, details


def test_the_draft_follows_the_details(family):
    header, _ = family
    draft = header_drafts([header])[header.pk]
    assert draft.differs
    assert "edge-cache, 25" in draft.text
    assert [op.text for op in draft.diff if op.kind == "insert"] == ["25"]


def test_using_the_draft_writes_it_and_marks_synced_in_one_change(family, people):
    header, _ = family
    version = stale_header(header).version
    updated = header_accept_draft(
        header=header, actor=people["editor"], expected_version=version, reason="timeouts moved"
    )
    assert "edge-cache, 25" in updated.content
    assert stale_header(updated) is None
    last = AuditEvent.objects.order_by("-pk")[:2]
    assert last[0].action == "header_synced"
    assert len({e.change_id for e in last}) == 1  # the text and the sync: one change
    assert HeaderSync.objects.get(header=header).synced_by == people["editor"].username


def test_a_card_shown_before_another_change_is_refused(family, people):
    header, details = family
    version = stale_header(header).version
    memory_update(memory=details[0], actor="agent", content=STEPS[0].replace("30", "35"))
    content = header.content
    with pytest.raises(StaleReview):
        header_accept_draft(header=header, actor=people["editor"], expected_version=version)
    header.refresh_from_db()
    assert header.content == content
    with pytest.raises(ValidationError):
        header_accept_draft(header=header, actor=people["editor"], expected_version="")


def test_the_queue_shows_the_draft_and_uses_it_without_javascript(family, client_as):
    header, _ = family
    client = client_as("editor")
    body = client.get("/map/stale/").content.decode()
    card = find(body, "li", id=f"stale-{header.pk}")
    assert "drafted again from its details" in text(card)
    form = find(card, "form", action=f"/map/stale/{header.pk}/draft/")
    version = attribute(find(form, "input", name="version"), "value")
    response = client.post(f"/map/stale/{header.pk}/draft/", {"version": version, "reason": ""})
    assert response.status_code == 302
    header.refresh_from_db()
    assert "edge-cache, 25" in header.content
    body = client.get(response["Location"]).content.decode()
    assert "takes its draft and is marked synced" in body


def test_a_viewer_sees_the_draft_but_cannot_use_it(family, client_as):
    header, _ = family
    body = client_as("viewer").get("/map/stale/").content.decode()
    card = find(body, "li", id=f"stale-{header.pk}")
    assert "drafted again from its details" in text(card)
    assert find_all(card, "form", action=f"/map/stale/{header.pk}/draft/") == []
    response = client_as("viewer").post(f"/map/stale/{header.pk}/draft/", {"version": "x"})
    assert response.status_code == 403


def test_a_header_written_by_hand_gets_no_draft(family, people, client_as):
    header, _ = family
    header = memory_update(memory=header, actor="system", content="Timeouts we chose, by service.")
    assert header_drafts([header]) == {}
    with pytest.raises(ValidationError, match="written by hand"):
        header_accept_draft(
            header=header, actor=people["editor"], expected_version=stale_header(header).version
        )
    body = client_as("editor").get("/map/stale/").content.decode()
    assert "drafted again from its details" not in body

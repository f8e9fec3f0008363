"""The composites pages: list with thumbnails and filters, the composite page, its actions."""

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite, ReferenceSet
from memadmin.composites.reference_services import reference_set_freeze
from memadmin.composites.services import (
    composite_create,
    composite_cursor_advance,
    composite_fingerprint,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
    composite_set_title,
    composite_set_type,
)
from memadmin.curation.merge_services import memory_merge
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import (
    Node,
    attribute,
    field_error,
    find,
    find_all,
    links,
    submitted,
    text,
    top,
)

pytestmark = pytest.mark.django_db


def card_titles(body: str) -> list[str]:
    """Return the titles of the list's composite cards, in order."""
    return [text(title) for title in find_all(body, "span", class_="card-title")]


def fields(body: str) -> dict:
    """Return the elements of the page's field list (`dl.fields`), by their names."""
    listing = find(body, "dl", class_="fields")
    names = [text(name) for name in find_all(listing, "dt")]
    return dict(zip(names, find_all(listing, "dd"), strict=True))


def type_badge(value) -> tuple[dict, str]:
    (badge,) = find_all(value, "span", class_="badge")
    return badge.attributes, text(badge)


@pytest.fixture
def sequence(steps):
    return composite_create(
        head=steps[0], type="sequence", members=steps[1:4], title="Release SOP", actor="agent"
    )


def seen(composite, **data):
    """Return `data` with the fingerprint of the composite as stored now, as its page sends it."""
    return {**data, "fingerprint": composite_fingerprint(Composite.objects.get(pk=composite.pk))}


def member_ids(composite):
    return list(composite.members.order_by("position").values_list("member_id", flat=True))


def test_list_shows_a_thumbnail_per_composite(client_as, sequence):
    """Each composite on the list comes with its picture."""
    response = client_as("viewer").get(reverse("composites:index"))
    assert response.status_code == 200
    body = response.content.decode()
    (card,) = find_all(body, "li", class_="composite-card")
    assert card_titles(body) == ["Release SOP"]
    assert len(find_all(find(card, "span", class_="thumb"), "svg")) == 1
    assert len(find_all(body, "svg")) == 1


def test_cards_that_share_a_title_are_told_apart_by_their_heads(client_as, project):
    """Two composites named alike show each head's own words on their cards."""
    for words in ("Use Kafka for the event queue.", "Use SQS for the event queue."):
        head = memory_create(project=project, category="RESEARCH", content=words, actor="agent")
        composite_create(head=head, type="alternatives", title="Queue options", actor="agent")
    body = client_as("viewer").get(reverse("composites:index")).content.decode()
    heads = [text(span) for span in find_all(body, "span", class_="card-head")]
    assert sorted(heads) == ["Use Kafka for the event queue.", "Use SQS for the event queue."]


@pytest.mark.parametrize(
    ("query", "shown"),
    [
        ({"type": "sequence"}, True),
        ({"type": "theme"}, False),
        ({"head_category": "OPS_RULES"}, True),
        ({"size": "small"}, True),
        ({"size": "large"}, False),
        ({"size": "empty"}, False),
    ],
)
def test_list_filters_by_type_head_category_and_size(client_as, sequence, query, shown):
    """Filters narrow the list; an htmx request gets the list section only."""
    response = client_as("viewer").get(reverse("composites:index"), query, HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert card_titles(body) == (["Release SOP"] if shown else [])
    assert "<html" not in body
    assert [(e.name, attribute(e, "id")) for e in top(body)] == [("section", "list-section")]


def test_an_unknown_filter_value_drops_only_that_filter(client_as, sequence, steps):
    """A head category nothing heads any more leaves the type filter working."""
    composite_create(head=steps[4], type="theme", members=steps[5:], title="Dossier", actor="agent")
    body = (
        client_as("viewer")
        .get(reverse("composites:index"), {"type": "theme", "head_category": "GONE"})
        .content.decode()
    )
    assert card_titles(body) == ["Dossier"]


def queries_for(client, url: str) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_list_reads_in_constant_queries(client_as, make_memories):
    """The list costs the same with one small composite or a page of large ones."""
    client = client_as("viewer")
    memories = make_memories(40)
    composite_create(head=memories[0], type="sequence", members=memories[1:3], actor="agent")
    one = queries_for(client, reverse("composites:index"))
    for index, type in enumerate(["theme", "cause", "alternatives", "sequence"] * 3, start=1):
        members = memories[index + 12 : index + 12 + index]
        composite_create(head=memories[index], type=type, members=members, actor="agent")
    assert queries_for(client, reverse("composites:index")) == one
    assert one <= 12


def test_detail_reads_in_constant_queries(client_as, make_memories):
    """A composite's page costs the same with two members or twenty, and with snapshots."""
    client = client_as("editor")
    head, *members = make_memories(21)
    composite = composite_create(head=head, type="sequence", members=members[:2], actor="agent")
    url = reverse("composites:detail", args=[composite.pk])
    small = queries_for(client, url)
    composite_member_add(composite=composite, members=members[2:], actor="agent")
    reference_set_freeze(composite=composite, actor="agent", at_ms=1)
    reference_set_freeze(composite=composite, actor="agent", at_ms=2)
    assert queries_for(client, url) == small


def cursor_at(body: str) -> Node:
    """The sentence of the cursor panel that says which step the cursor is on."""
    return find(find(body, "div", class_="cursor-panel"), "p", class_="cursor-at")


def test_detail_shows_picture_members_and_cursor(client_as, sequence, steps):
    """The composite page draws the composite and marks the cursor's step."""
    body = (
        client_as("viewer").get(reverse("composites:detail", args=[sequence.pk])).content.decode()
    )
    section = find(body, "section", id="composite-section")
    assert find(find(section, "figure", class_="composite-picture"), "svg")
    assert text(cursor_at(body)).startswith("Step 1 of 3:")
    assert text(find(cursor_at(body), "strong")) == "1"
    assert f"#{steps[1].display_id}" in body
    assert "Move #" not in body  # a viewer sees no edit buttons


def test_move_up_without_javascript_redirects_back(client_as, sequence, steps):
    """A plain POST reorders and redirects to the page."""
    url = reverse("composites:member_move", args=[sequence.pk, steps[3].pk])
    response = client_as("editor").post(url, seen(sequence, position=1))
    assert response.status_code == 302
    assert member_ids(sequence) == [steps[3].pk, steps[1].pk, steps[2].pk]


def test_htmx_action_answers_with_the_section(client_as, sequence, steps):
    """With htmx, an action answers with the composite section, picture included."""
    url = reverse("composites:cursor", args=[sequence.pk])
    response = client_as("editor").post(url, seen(sequence, action="back"), HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert [(e.name, attribute(e, "id")) for e in top(body)] == [("section", "composite-section")]
    assert "<html" not in body
    assert text(cursor_at(body)).startswith("Step 3 of 3:")
    assert text(find(cursor_at(body), "strong")) == "3"


def test_refusal_is_shown_in_the_section(client_as, sequence, steps):
    """Adding the head as a member is refused with the service's message."""
    url = reverse("composites:member_add", args=[sequence.pk])
    response = client_as("editor").post(
        url, seen(sequence, members=str(steps[0].display_id)), HTTP_HX_REQUEST="true"
    )
    assert "never its own member" in response.content.decode()
    assert len(member_ids(sequence)) == 3


def test_add_members_by_display_id_at_a_step(client_as, sequence, steps):
    """Members are typed as ids; the step counts from 1."""
    url = reverse("composites:member_add", args=[sequence.pk])
    client_as("editor").post(
        url, seen(sequence, members=f"#{steps[4].pk}, {steps[5].pk}", position=1)
    )
    assert member_ids(sequence)[:2] == [steps[4].pk, steps[5].pk]


def test_viewer_cannot_edit(client_as, sequence, steps):
    """Edits need the editor role."""
    url = reverse("composites:cursor", args=[sequence.pk])
    assert client_as("viewer").post(url, {"action": "advance"}).status_code == 403


def test_create_from_a_memory(client_as, steps):
    """The new-composite page takes a head and typed member ids."""
    url = reverse("composites:create") + f"?head={steps[0].pk}"
    response = client_as("editor").post(
        url, {"type": "cause", "title": "Why", "members": f"{steps[1].pk} {steps[2].pk}"}
    )
    composite = Composite.objects.get()
    assert response.status_code == 302
    assert (composite.type, member_ids(composite)) == ("cause", [steps[1].pk, steps[2].pk])


def test_create_on_an_archived_head_is_refused(client_as, steps):
    """The page shows why and writes nothing."""
    memory_update(memory=steps[0], status="archived", actor="agent")
    url = reverse("composites:create") + f"?head={steps[0].pk}"
    response = client_as("editor").post(url, {"type": "theme"})
    assert response.status_code == 400
    assert "archived" in response.content.decode()
    assert not Composite.objects.exists()


def test_freeze_then_export(client_as, sequence, steps):
    """Freezing leads to the snapshot page; its JSON is the delegation shape."""
    client = client_as("editor")
    response = client.post(reverse("composites:freeze", args=[sequence.pk]), {"note": "for QA"})
    snapshot = ReferenceSet.objects.get()
    assert response.url == reverse("composites:snapshot", args=[snapshot.ref])
    page = client.get(response.url).content.decode()
    assert "still matches" in page
    exported = json.loads(
        client.get(reverse("composites:snapshot_export", args=[snapshot.ref])).content
    )
    assert exported == {
        "memory": {"prefetch_ids": [str(m.display_id) for m in steps[:4]], "mode": "frozen"},
        "snapshot_ref": snapshot.ref,
    }


def test_snapshot_page_shows_drift(client_as, sequence, steps):
    """An edit since the snapshot shows on its row."""
    snapshot = reference_set_freeze(composite=sequence, actor="agent")
    memory_update(memory=steps[2], content="Changed since.", actor="agent")
    page = client_as("viewer").get(reverse("composites:snapshot", args=[snapshot.ref]))
    assert "drift-edited" in page.content.decode()


def test_rename_and_change_type(client_as, sequence):
    """The title and the type change from the composite's page."""
    client = client_as("editor")
    client.post(reverse("composites:title", args=[sequence.pk]), seen(sequence, title="Runbook"))
    client.post(reverse("composites:type", args=[sequence.pk]), seen(sequence, type="theme"))
    sequence.refresh_from_db()
    assert (sequence.title, sequence.type) == ("Runbook", "theme")


def test_an_archived_head_hides_every_edit_control(client_as, sequence, steps):
    """Under an archived head the page offers no edit the services would refuse."""
    memory_update(memory=steps[0], status="archived", actor="agent")
    body = (
        client_as("editor").get(reverse("composites:detail", args=[sequence.pk])).content.decode()
    )
    assert "is archived: this composite cannot be edited" in body
    assert reverse("composites:cursor", args=[sequence.pk]) not in body
    assert reverse("composites:member_add", args=[sequence.pk]) not in body
    assert "Move #" not in body


HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'


def test_user_text_is_escaped_on_every_composite_page(client_as, project):
    """Memory text and titles reach the pictures and the pages escaped, never as markup."""
    head, member = (
        memory_create(
            project=project, category="OPS_RULES", content=f"{HOSTILE} {n}", actor="agent"
        )
        for n in (1, 2)
    )
    composite = composite_create(
        head=head, type="sequence", members=[member], title=HOSTILE, actor="agent"
    )
    snapshot = reference_set_freeze(composite=composite, note=HOSTILE, actor="agent")
    client = client_as("editor")
    pages = [
        reverse("composites:index"),
        reverse("composites:detail", args=[composite.pk]),
        reverse("composites:delete", args=[composite.pk]),
        reverse("composites:snapshot", args=[snapshot.ref]),
        reverse("memories:detail", args=[head.pk]),
        reverse("memories:detail", args=[member.pk]),
    ]
    for url in pages:
        body = client.get(url).content.decode()
        assert "<script>alert" not in body, url
        assert "<img src=x" not in body, url
        assert "&lt;script&gt;" in body, url


def deleted_events():
    return AuditEvent.objects.filter(action="composite_deleted")


def test_the_delete_button_opens_the_confirmation(client_as, sequence):
    """The composite's page links to the confirmation; it posts nothing itself."""
    url = reverse("composites:delete", args=[sequence.pk])
    body = client_as("editor").get(reverse("composites:detail", args=[sequence.pk])).content
    assert len(find_all(body.decode(), "form", method="get", action=url)) == 1
    assert find_all(body.decode(), "form", method="post", action=url) == []
    viewer_body = client_as("viewer").get(reverse("composites:detail", args=[sequence.pk])).content
    assert url.encode() not in viewer_body


def test_the_confirmation_says_what_goes_and_deletes_nothing(client_as, sequence, steps):
    """GET shows the type, title, head and member count, and that the memories stay."""
    response = client_as("editor").get(reverse("composites:delete", args=[sequence.pk]))
    assert response.status_code == 200
    body = response.content.decode()
    assert text(find(body, "h1")) == "Delete Release SOP?"
    shown = fields(body)
    assert type_badge(shown["Type"]) == ({"class": "badge type-sequence"}, "sequence")
    assert text(shown["Head"]).startswith(f"#{steps[0].display_id} (OPS_RULES) ")
    assert links(shown["Head"]) == [(f"#{steps[0].display_id}", f"/memories/{steps[0].pk}/")]
    assert text(shown["Members"]) == "3"
    assert "No memory is deleted or changed" in body
    form = find(
        body, "form", method="post", action=reverse("composites:delete", args=[sequence.pk])
    )
    assert find(form, name="reason")
    assert Composite.objects.filter(pk=sequence.pk).exists()
    assert not deleted_events().exists()


def test_the_confirmation_mentions_snapshots_that_stay(client_as, sequence):
    """A composite with frozen snapshots says they stay readable."""
    reference_set_freeze(composite=sequence, actor="agent")
    body = client_as("editor").get(reverse("composites:delete", args=[sequence.pk])).content
    assert b"Its frozen snapshots (1) stay readable." in body


def test_posting_the_confirmation_deletes_with_the_reason(client_as, sequence, steps, people):
    """POST deletes the composite, keeps its memories and records the why as the reason."""
    client = client_as("editor")
    page = client.get(reverse("composites:delete", args=[sequence.pk]))
    response = confirm_delete(client, page, reason="Folded into the runbook.")
    assert response.status_code == 302
    assert response["Location"] == reverse("composites:index")
    assert not Composite.objects.filter(pk=sequence.pk).exists()
    assert Memory.objects.filter(pk__in=[step.pk for step in steps[:4]]).count() == 4
    event = deleted_events().get()
    assert (event.reason, event.actor_user_id) == ("Folded into the runbook.", people["editor"].pk)
    assert event.changes["members"] == [step.pk for step in steps[1:4]]


def test_the_why_is_optional(client_as, sequence):
    """A confirmation without a reason deletes, with an empty reason."""
    client = client_as("editor")
    confirm_delete(client, client.get(reverse("composites:delete", args=[sequence.pk])))
    assert not Composite.objects.filter(pk=sequence.pk).exists()
    assert deleted_events().get().reason == ""


def test_a_too_long_why_is_refused_and_nothing_is_deleted(client_as, sequence):
    """The confirmation comes back with the error; the composite stays."""
    response = client_as("editor").post(
        reverse("composites:delete", args=[sequence.pk]), {"reason": "x" * 501}
    )
    assert response.status_code == 400
    reason = field_error(response.content.decode(), "id_reason")
    assert reason == "Keep the reason to 500 characters at most."
    assert Composite.objects.filter(pk=sequence.pk).exists()
    assert not deleted_events().exists()


def confirm_delete(client, page, **data):
    """Post a delete confirmation page's form, as the person would."""
    path = page.wsgi_request.path
    form = find(page.content.decode(), "form", method="post", action=path)
    return client.post(path, {**dict(submitted(form)), **data})


@pytest.mark.parametrize(
    "change",
    [
        lambda c, steps: composite_member_add(composite=c, members=[steps[4]], actor="agent"),
        lambda c, steps: composite_member_remove(composite=c, member=steps[2], actor="agent"),
        lambda c, steps: composite_member_move(
            composite=c, member=steps[3], position=0, actor="agent"
        ),
        lambda c, steps: composite_set_type(composite=c, type="theme", actor="agent"),
        lambda c, steps: composite_set_title(composite=c, title="Old SOP", actor="agent"),
        lambda c, steps: composite_cursor_advance(composite=c, actor="agent"),
        lambda c, steps: memory_merge(
            memories=[steps[0], steps[5]], content="Merged head.", reason="", actor="agent"
        ),
    ],
    ids=["member added", "member removed", "member moved", "type", "title", "cursor", "head"],
)
def test_a_composite_changed_since_the_confirmation_is_not_deleted(
    client_as, sequence, steps, change
):
    """The page comes back as the composite is now, saying so, the why kept; nothing deleted."""
    client = client_as("editor")
    page = client.get(reverse("composites:delete", args=[sequence.pk]))
    change(sequence, steps)
    events = AuditEvent.objects.count()
    refused = confirm_delete(client, page, reason="Folded <b>into</b> the runbook.")
    body = refused.content.decode()
    assert refused.status_code == 409
    refusal = find(body, "div", class_="refusal", role="alert")
    assert "Someone else changed this composite" in text(refusal)
    assert "Nothing was deleted" in body
    form = find(
        body, "form", method="post", action=reverse("composites:delete", args=[sequence.pk])
    )
    assert find(form, "textarea", name="reason")
    assert dict(submitted(form))["reason"] == "Folded <b>into</b> the runbook."
    sequence.refresh_from_db()
    # The form's field carries the version shown now, not the one the refused post carried.
    assert dict(submitted(form))["fingerprint"] == composite_fingerprint(sequence)
    shown = fields(body)
    assert type_badge(shown["Type"]) == ({"class": f"badge type-{sequence.type}"}, sequence.type)
    assert text(shown["Members"]) == str(sequence.members.count())
    assert links(shown["Head"]) == [
        (f"#{sequence.head.display_id}", f"/memories/{sequence.head.pk}/")
    ]
    assert Composite.objects.filter(pk=sequence.pk).exists()
    assert (AuditEvent.objects.count(), deleted_events().exists()) == (events, False)
    done = confirm_delete(client, refused, reason="Folded into the runbook.")
    assert done.status_code == 302
    assert not Composite.objects.filter(pk=sequence.pk).exists()
    assert deleted_events().get().reason == "Folded into the runbook."


def test_an_unchanged_composite_is_deleted_as_confirmed(client_as, sequence):
    """The fingerprint holds while nothing changes, a freeze included."""
    client = client_as("editor")
    page = client.get(reverse("composites:delete", args=[sequence.pk]))
    reference_set_freeze(composite=sequence, actor="agent")
    assert confirm_delete(client, page).status_code == 302
    assert not Composite.objects.filter(pk=sequence.pk).exists()


def test_the_confirmation_sends_the_version_it_shows_from_its_form(client_as, sequence):
    """The delete form's hidden fingerprint is its field's: the composite's version now."""
    page = client_as("editor").get(reverse("composites:delete", args=[sequence.pk]))
    form = find(page.content.decode(), "form", method="post", action=page.wsgi_request.path)
    assert [name for name, _ in submitted(form)] == ["csrfmiddlewaretoken", "fingerprint", "reason"]
    assert dict(submitted(form))["fingerprint"] == composite_fingerprint(sequence)


@pytest.mark.parametrize("fingerprint", ["", "0" * 64, "x", "f" * 65, "\u00e9" * 10])
def test_a_tampered_fingerprint_deletes_nothing(client_as, sequence, fingerprint):
    """A version that is not the composite's (none, another, malformed): refused, said, 409."""
    client = client_as("editor")
    url = reverse("composites:delete", args=[sequence.pk])
    refused = client.post(url, {"fingerprint": fingerprint, "reason": "Gone."})
    assert refused.status_code == 409
    body = refused.content.decode()
    assert "Nothing was deleted" in text(find(body, "div", class_="refusal", role="alert"))
    form = find(body, "form", method="post", action=url)
    assert dict(submitted(form)) | {"csrfmiddlewaretoken": ""} == {
        "csrfmiddlewaretoken": "",
        "fingerprint": composite_fingerprint(sequence),
        "reason": "Gone.",
    }
    assert Composite.objects.filter(pk=sequence.pk).exists()
    assert not deleted_events().exists()


def test_a_viewer_can_neither_see_nor_post_the_confirmation(client_as, sequence):
    """Deleting needs the editor role, for the confirmation as for the deletion."""
    client = client_as("viewer")
    url = reverse("composites:delete", args=[sequence.pk])
    assert client.get(url).status_code == 403
    assert client.post(url, {"reason": "No."}).status_code == 403
    assert Composite.objects.filter(pk=sequence.pk).exists()
    assert not deleted_events().exists()


@pytest.mark.parametrize("method", ["get", "post"])
def test_an_unknown_composite_is_not_found(client_as, sequence, method):
    """A composite that does not exist (or is already deleted) answers 404."""
    url = reverse("composites:delete", args=[sequence.pk + 1000])
    assert getattr(client_as("editor"), method)(url).status_code == 404
    assert Composite.objects.filter(pk=sequence.pk).exists()

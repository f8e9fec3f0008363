"""The stale-header queue, its navigation count, "mark synced", and `manage.py headers`."""

import io
import json

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse
from pytest_django.asserts import assertContains, assertInHTML

from memadmin.composites.services import (
    composite_create,
    composite_delete,
    composite_member_add,
)
from memadmin.headermap.models import HeaderSync
from memadmin.headermap.stale_services import header_mark_synced
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import attribute, find, find_all, links, text

from .stale_fixtures import T0, edit_build, make_release

pytestmark = pytest.mark.django_db


def who_and_why(card) -> list[tuple[str, str]]:
    """Each version line of a card: its text, and the reason in emphasis after "by actor:"."""
    lines = find_all(card, "small", class_="stale-version")
    return [(text(line), text(find(line, "em"))) for line in lines if find_all(line, "em")]


def only_card(body):
    (card,) = find_all(find(body, "ol", class_="stale-headers"), "li", class_="stale-header")
    return card


def inserted(card) -> list[str]:
    """The words the card's detail diffs add (the header's draft aside)."""
    return [text(added) for added in find_all(find(card, "ul", class_="stale-details"), "ins")]


def typed_note(card, header) -> str:
    """The note typed in the card's "Mark synced" form."""
    form = find(card, "form", method="post", action=f"/map/stale/{header.pk}/synced/")
    return attribute(find(form, "input", name="reason"), "value")


# The navigation's count of one stale header, linking to the queue.
ONE_STALE = (
    '<span id="stale-count"><a class="nav-count" href="/map/stale/"'
    ' title="1 stale header: details changed since the last sync">'
    '1<span class="visually-hidden"> stale header</span></a></span>'
)


def shown_version(client, header) -> str:
    """Return the version the queue's "Mark synced" form for the header carries."""
    body = client.get("/map/stale/").content.decode()
    form = find(body, "form", method="post", action=f"/map/stale/{header.pk}/synced/")
    return attribute(find(form, "input", type="hidden", name="version"), "value")


@pytest.fixture(autouse=True)
def fresh_cache():
    """Each test counts afresh: rolled-back tests reuse ids, so fingerprints can repeat."""
    cache.clear()


@pytest.fixture
def release(project):
    """A header over two steps, in sync."""
    return make_release(project)


@pytest.fixture
def edited(release):
    """The same, with one step edited after the header was made."""
    return edit_build(release)


@pytest.fixture
def joined(release, project):
    """The same header synced, then an unchanged memory added to its sequence."""
    release["notes"] = memory_create(
        project=project, category="OPS_RULES", content="Write notes.", actor="agent", at_ms=T0
    )
    header_mark_synced(header=release["header"], actor="dreamer", at_ms=T0 + 120_000)
    composite_member_add(
        composite=release["header"].headed_composites.get(),
        members=[release["notes"]],
        actor="historian",
        reason="the notes are a step now",
        at_ms=T0 + 180_000,
    )
    return release


def test_the_navigation_counts_stale_headers(client_as, edited):
    """Every page shows the count next to Map, linking to the queue."""
    body = client_as("viewer").get("/memories/").content.decode()
    assertInHTML(ONE_STALE, body)


def test_no_count_when_nothing_is_stale(client_as, release):
    """With every header in sync the navigation shows no count."""
    body = client_as("viewer").get("/memories/").content.decode()
    assertInHTML('<span id="stale-count"></span>', body)
    assert find_all(body, "a", class_="nav-count") == []


def test_the_queue_shows_what_changed(client_as, edited):
    """Each stale header is listed with its changed details, the diff and who changed them."""
    body = client_as("viewer").get("/map/stale/").content.decode()
    assert "1 stale header" in body
    assert "Release: build, then tag." in body
    card = only_card(body)
    assert inserted(card) == ["-all"]
    (line, why) = who_and_why(card)[-1]
    assert line.endswith("by historian: the target was renamed") and why == "the target was renamed"
    assert "never synced" in body


def test_a_viewer_sees_no_sync_button(client_as, edited):
    """Only editors are offered "Mark synced"."""
    assert b"Mark synced" not in client_as("viewer").get("/map/stale/").content
    assert b"Mark synced" in client_as("editor").get("/map/stale/").content


def test_marking_synced_without_javascript_redirects_to_the_queue(client_as, edited):
    """A plain post marks the header synced and comes back to an empty queue."""
    client = client_as("editor")
    response = client.post(
        f"/map/stale/{edited['header'].pk}/synced/",
        {"reason": "ok", "version": shown_version(client, edited["header"])},
    )
    assert response.status_code == 302 and response.url == "/map/stale/"
    assert HeaderSync.objects.get().synced_by == "editor"
    assert b"0 stale headers" in client.get("/map/stale/").content


def test_marking_synced_over_htmx_swaps_the_card_and_the_count(client_as, edited):
    """An htmx post gets the confirmation and the emptied count, out of band."""
    client = client_as("editor")
    response = client.post(
        f"/map/stale/{edited['header'].pk}/synced/",
        {"version": shown_version(client, edited["header"])},
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert "is marked synced" in body
    assertInHTML('<span id="stale-count" hx-swap-oob="true"></span>', body)
    assertInHTML(
        f'<li id="stale-{edited["header"].pk}" class="stale-header synced" role="status">'
        f"#{edited['header'].display_id} is marked synced.</li>",
        body,
    )


def test_a_viewer_cannot_mark_synced(client_as, edited):
    """Marking synced needs the editor role."""
    response = client_as("viewer").post(f"/map/stale/{edited['header'].pk}/synced/")
    assert response.status_code == 403
    assert not HeaderSync.objects.exists()


def test_marking_a_non_header_is_refused(client_as, edited):
    """A memory that heads nothing gets a clear refusal."""
    response = client_as("editor").post(f"/map/stale/{edited['build'].pk}/synced/")
    assert response.status_code == 400
    assert b"heads no composite" in response.content
    # the queue, not a bare text page
    assertContains(response, "<h1>Stale headers</h1>", html=True, status_code=400)


def run(*args) -> str:
    out = io.StringIO()
    call_command("headers", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_command_lists_stale_headers_as_json(edited):
    """`headers stale --json` gives each stale header and its changed details."""
    (entry,) = json.loads(run("stale", "--json"))
    assert entry["id"] == edited["header"].display_id and entry["since"] == T0
    (detail,) = entry["details"]
    assert detail["before"] == "Build with make release."
    assert detail["now"] == "Build with make release-all."
    assert detail["versions"][0]["actor"] == "historian"


def test_the_command_lists_stale_headers_as_text(edited):
    """`headers stale` prints one tab-separated line per stale header."""
    (line,) = run("stale").splitlines()
    header = edited["header"]
    assert line.split("\t")[:3] == [
        f"#{header.display_id}",
        header.project.identity,
        f"#{edited['build'].display_id}",
    ]


def test_the_command_marks_synced_by_display_id(edited):
    """`headers synced` takes the ids the agent sees."""
    header = edited["header"]
    run(
        "synced", "--project", header.project.identity, str(header.display_id), "--actor", "dreamer"
    )
    assert HeaderSync.objects.get().synced_by == "dreamer"
    assert json.loads(run("stale", "--json")) == []


def test_the_command_refuses_unknown_ids_and_writes_nothing(edited):
    """One bad id refuses them all."""
    header = edited["header"]
    with pytest.raises(CommandError, match="No memory #999999"):
        run("synced", "--project", header.project.identity, str(header.display_id), "999999")
    assert not HeaderSync.objects.exists()


def test_the_queue_shows_a_membership_change(client_as, joined):
    """A memory that joined is listed, linked, with its composite, who added it and why."""
    body = client_as("viewer").get("/map/stale/").content.decode()
    notes, sequence = joined["notes"], joined["header"].headed_composites.get()
    assert "1 stale header" in body and "1 change to its details since" in body
    card = only_card(body)
    (change,) = find_all(card, "li", class_="stale-membership-change")
    sentence = find(change, "p")
    assert text(sentence).startswith(f"#{notes.display_id} joined the sequence 'Release'")
    assert links(sentence) == [
        (f"#{notes.display_id}", reverse("memories:detail", args=[notes.pk])),
        ("'Release'", reverse("composites:detail", args=[sequence.pk])),
    ]
    (line, why) = who_and_why(change)[0]
    assert line.endswith("by historian: the notes are a step now")
    assert why == "the notes are a step now"
    headings = [text(heading) for heading in find_all(body, "h3")]
    assert not [h for h in headings if h.endswith("changed since")]  # no detail's text changed


def test_the_navigation_counts_a_membership_change(client_as, joined):
    """A header stale only for a join counts in the navigation."""
    body = client_as("viewer").get("/memories/").content.decode()
    assertInHTML(ONE_STALE, body)


def test_marking_synced_clears_a_membership_change(client_as, joined):
    """The sync empties the count over htmx, and the queue after it."""
    client = client_as("editor")
    response = client.post(
        f"/map/stale/{joined['header'].pk}/synced/",
        {"version": shown_version(client, joined["header"])},
        headers={"HX-Request": "true"},
    )
    assertInHTML('<span id="stale-count" hx-swap-oob="true"></span>', response.content.decode())
    assert b"0 stale headers" in client.get("/map/stale/").content


def test_the_command_lists_membership_changes_as_json(joined):
    """`headers stale --json` gives each change to the set of details, with who and why."""
    (entry,) = json.loads(run("stale", "--json"))
    notes, sequence = joined["notes"], joined["header"].headed_composites.get()
    assert entry["details"] == []
    assert entry["membership"] == [
        {
            "change": "joined",
            "summary": f"#{notes.display_id} joined the sequence 'Release'",
            "composite": {
                "pk": sequence.pk,
                "type": "sequence",
                "title": "Release",
                "exists": True,
            },
            "members": [{"id": notes.display_id, "pk": notes.pk, "exists": True}],
            "at": T0 + 180_000,
            "actor": "historian",
            "reason": "the notes are a step now",
        }
    ]


def test_the_command_lists_membership_changes_as_text(joined):
    """`headers stale` puts each membership change in the changed column."""
    (line,) = run("stale").splitlines()
    assert line.split("\t")[2] == f"#{joined['notes'].display_id} joined the sequence 'Release'"


def test_the_queue_shows_a_deleted_composite_unlinked(client_as, joined):
    """A composite deleted since the sync is named, not linked."""
    checks = composite_create(
        head=joined["header"], type="theme", title="Checks", actor="agent", at_ms=T0 + 60_000
    )
    composite_delete(composite=checks, actor="dreamer", reason="empty", at_ms=T0 + 240_000)
    body = client_as("viewer").get("/map/stale/").content.decode()
    assert "2 changes to its details since" in body
    assert "The theme 'Checks' was deleted" in body
    assert reverse("composites:detail", args=[checks.pk]) not in body
    assert ("empty" in [why for line, why in who_and_why(only_card(body))]) and any(
        line.endswith("by dreamer: empty") for line, why in who_and_why(only_card(body))
    )


def test_the_queue_comes_a_page_at_a_time(client_as, project):
    """Past STALE_PER_PAGE headers, the queue is paged, oldest first, and page 2 has the rest."""
    from memadmin.composites.services import composite_create
    from memadmin.headermap.stale_views import STALE_PER_PAGE
    from memadmin.memories.services import memory_create, memory_update

    heads = []
    for n in range(STALE_PER_PAGE + 2):
        head = memory_create(
            project=project, category="OPS_RULES", content=f"Head {n}.", actor="agent"
        )
        detail = memory_create(
            project=project, category="OPS_RULES", content=f"Detail {n}.", actor="agent"
        )
        composite_create(head=head, type="theme", members=[detail], actor="agent")
        memory_update(memory=detail, actor="agent", content=f"Detail {n}, changed.")
        heads.append(head)
    client = client_as("viewer")
    first = client.get("/map/stale/", {"project": project.pk}).content.decode()
    assert f"{STALE_PER_PAGE + 2} stale headers, page 1 of 2" in first
    queue = find(first, "ol", class_="stale-headers")
    shown = [attribute(card, "id") for card in find_all(queue, "li", class_="stale-header")]
    assert shown == [f"stale-{head.pk}" for head in heads[:STALE_PER_PAGE]]  # oldest first
    second = client.get("/map/stale/", {"project": project.pk, "page": 2}).content.decode()
    queue = find(second, "ol", class_="stale-headers")
    shown = [attribute(card, "id") for card in find_all(queue, "li", class_="stale-header")]
    assert shown == [f"stale-{head.pk}" for head in heads[STALE_PER_PAGE:]]


def test_marking_synced_is_refused_when_a_detail_changed_since_the_queue_was_shown(
    client_as, edited
):
    """A detail edited after the queue was loaded is not marked synced with the rest: 409.

    The queue comes back as it is now (the new edit shown) with the note typed kept.
    """
    client = client_as("editor")
    version = shown_version(client, edited["header"])
    memory_update(memory=edited["tag"], content="Tag, then push the tag.", actor="historian")
    response = client.post(
        f"/map/stale/{edited['header'].pk}/synced/", {"version": version, "reason": "my note"}
    )
    assert response.status_code == 409
    body = response.content.decode()
    assert "changed after the queue was loaded" in body
    card = find(body, "li", id=f"stale-{edited['header'].pk}", class_="stale-header")
    # the change the reviewer had not seen, shown now
    assert any(added.endswith("then push the") for added in inserted(card))
    assert typed_note(card, edited["header"]) == "my note"
    assert not HeaderSync.objects.exists()


def test_marking_synced_over_htmx_is_refused_in_place_when_a_detail_changed(client_as, edited):
    """Over htmx the refused card comes back as it is now, with why and the note kept."""
    client = client_as("editor")
    version = shown_version(client, edited["header"])
    memory_update(memory=edited["tag"], content="Tag, then push the tag.", actor="historian")
    response = client.post(
        f"/map/stale/{edited['header'].pk}/synced/",
        {"version": version, "reason": "checked"},
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert response.status_code == 200  # htmx swaps only 2xx answers
    card = find(body, "li", id=f"stale-{edited['header'].pk}", class_="stale-header")
    assert attribute(card, "role") == "alert"
    assert "changed after the queue was loaded" in body
    assert any(added.endswith("then push the") for added in inserted(card))
    assert typed_note(card, edited["header"]) == "checked"
    assert not HeaderSync.objects.exists()


def test_marking_synced_without_a_version_is_refused_like_a_stale_one(client_as, edited):
    """A form that does not say what was reviewed marks nothing: 409, the queue shown."""
    response = client_as("editor").post(f"/map/stale/{edited['header'].pk}/synced/")
    assert response.status_code == 409
    assert b"did not say which changes" in response.content
    assert not HeaderSync.objects.exists()


def test_marking_synced_is_refused_when_a_memory_joined_since(client_as, release, project):
    """A change to the set of details after loading the queue also refuses the mark."""
    client = client_as("editor")
    header_mark_synced(header=release["header"], actor="dreamer", at_ms=T0 + 120_000)
    first = memory_create(project=project, category="OPS_RULES", content="One.", actor="agent")
    composite = release["header"].headed_composites.get()
    composite_member_add(composite=composite, members=[first], actor="agent", at_ms=T0 + 180_000)
    version = shown_version(client, release["header"])
    second = memory_create(project=project, category="OPS_RULES", content="Two.", actor="agent")
    composite_member_add(composite=composite, members=[second], actor="agent", at_ms=T0 + 240_000)
    response = client.post(f"/map/stale/{release['header'].pk}/synced/", {"version": version})
    assert response.status_code == 409
    assert HeaderSync.objects.get().synced_at == T0 + 120_000


@pytest.mark.parametrize("note", ["x" * 201, "a NUL \x00 byte"])
def test_a_note_the_form_refuses_marks_nothing(client_as, edited, note):
    """A note over 200 characters or with a NUL byte is refused (400), before anything is written."""
    client = client_as("editor")
    version = shown_version(client, edited["header"])
    response = client.post(
        f"/map/stale/{edited['header'].pk}/synced/", {"version": version, "reason": note}
    )
    assert response.status_code == 400
    assert not HeaderSync.objects.exists()

"""The fragmentation page: preview, adjust, apply, and the memory page's links."""

import re

import pytest

from memadmin.composites.models import Composite
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from tests.html_tree import attribute, find, find_all, links, submitted, text, top

pytestmark = pytest.mark.django_db

SOP = (
    "Release SOP, the full procedure for shipping a version of the service to production.\n\n"
    "1. Build with make release, after checking that the changelog names every change.\n"
    "2. Tag with git tag vX and push the tag, so that the pipeline builds the images.\n"
    "3. Announce it in #releases, with the changelog and the rollback instructions."
)


@pytest.fixture
def long_memory(remember):
    return remember(SOP)


def url(memory):
    return f"/structure/fragment/{memory.pk}/"


def rows(*starts, merge=(), split_at=None) -> dict:
    """Return the split as the page sends it: the rows' management form, one start line per row
    (fragment 2 first), the merge boxes ticked for the fragments in `merge`, and the new line."""
    data = {"boundary-TOTAL_FORMS": str(len(starts)), "boundary-INITIAL_FORMS": str(len(starts))}
    for index, start in enumerate(starts):
        data[f"boundary-{index}-start"] = str(start)
        if index + 2 in merge:
            data[f"boundary-{index}-merge"] = "on"
    if split_at is not None:
        data["split_at"] = str(split_at)
    return data


def start_fields(body) -> list:
    """The start-line boxes of the split section, fragment 2 first (boundary-N-start)."""
    return [
        field
        for field in find_all(split_section(body), "input")
        if re.fullmatch(r"boundary-\d+-start", attribute(field, "name") or "")
    ]


def start_boxes(body: str) -> list[str]:
    """Return the names of the start-line boxes a page shows."""
    return [attribute(field, "name") for field in start_fields(body)]


def split_section(body):
    """The part of the form the split controls refresh: boundaries, version and preview."""
    return find(body, "div", id="split-section")


def starts(body) -> list[str]:
    """The start line of each fragment after the first, as the boundary fields hold them."""
    return [attribute(field, "value") for field in start_fields(body)]


def previewed(body) -> list[str]:
    """The text of each detail the preview proposes, as written (newlines kept)."""
    preview = find(split_section(body), "ol", class_="fragment-preview")
    return ["".join(pre.children) for pre in find_all(preview, "pre", class_="fragment-text")]


def version_in(body) -> str:
    """The version of the text the split section carries, for the apply to check."""
    return attribute(
        find(split_section(body), "input", type="hidden", name="expected_updated_at"), "value"
    )


def test_the_page_previews_the_proposed_split(client_as, long_memory):
    """The page proposes fragments, listing where each starts and its text."""
    body = client_as("editor").get(url(long_memory)).content.decode()
    assert len(starts(body)) == 3
    assert (
        len([detail for detail in previewed(body) if detail.startswith("2. Tag with git tag vX")])
        == 1
    )
    assert "4 details" in body


def test_the_mode_choices_are_short_and_the_automatic_one_is_explained(client_as, long_memory):
    """A closed select shows its choice in a phone's width: "automatically" says what it does
    in the help text the select is described by."""
    body = client_as("editor").get(url(long_memory)).content.decode()
    select = find(body, "select", id="split-by")
    assert [text(option) for option in find_all(select, "option")] == [
        "automatically",
        "at headings",
        "at list items",
        "at blank lines (paragraphs)",
    ]
    help_text = find(body, "small", id=attribute(select, "aria-describedby"))
    assert text(help_text).startswith("Automatically: at headings if the text has any")


def test_the_preview_counts_with_the_maps_counter_and_names_it(client_as, long_memory):
    """The fragment page sizes texts as the header map does, and says which counter that is."""
    body = client_as("editor").get(url(long_memory)).content.decode()
    sentence = find(split_section(body), "p", class_="ledger-counter")
    assert text(find(sentence, "strong")) == "heuristic"
    assert text(sentence).startswith(
        "Token counts by the heuristic counter, the one the header map"
    )


def test_the_header_summary_is_proposed_and_never_empty(client_as, long_memory):
    """The summary box starts with the memory's title line or first sentence."""
    body = client_as("editor").get(url(long_memory)).content.decode()
    form = find(body, "form", id="fragment-form", method="post")
    assert find(form, "textarea", name="summary")
    assert dict(submitted(form))["summary"].strip()


def test_previewing_without_javascript_keeps_the_token_out_of_the_address(client_as, long_memory):
    """The preview buttons post: the CSRF token is never sent in a query string."""
    client = client_as("editor")
    body = client.get(url(long_memory)).content.decode()
    assert "get" not in [
        attribute(e, "formmethod").lower() for e in find_all(body, formmethod=True)
    ]
    form = find(body, "form", id="fragment-form", method="post", action=url(long_memory))
    assert find(form, "button", type="submit", name="preview")
    response = client.post(url(long_memory), {"preview": "1", "by": "auto"})
    assert response.status_code == 200
    assert long_memory.__class__.objects.get(pk=long_memory.pk).status == "active"


def test_merging_and_moving_refresh_the_preview_over_htmx(client_as, long_memory):
    """Merging fragment 4 into 3 gives three details, in the split section alone."""
    response = client_as("editor").get(
        url(long_memory),
        rows(3, 4, 5, merge={4}),
        headers={"HX-Request": "true", "HX-Trigger-Name": "boundary-2-merge"},
    )
    body = response.content.decode()
    assert (top(body)[0].name, attribute(top(body)[0], "id")) == ("div", "split-section")
    assert "3 details" in body
    assert len(previewed(body)) == 3
    assert any(
        "2. Tag with git tag vX and push the tag, so that the pipeline builds the images.\n3."
        in detail
        for detail in previewed(body)
    )


def test_changing_the_mode_proposes_again(client_as, long_memory):
    """Choosing another split mode replaces the boundaries with its proposal.

    htmx names the fieldset as the trigger, not the select, so only `by_was` tells.
    """
    response = client_as("editor").get(
        url(long_memory),
        {"by": "paragraphs", "by_was": "auto", **rows(3, 5)},
        headers={"HX-Request": "true"},
    )
    assert "2 details" in response.content.decode()


def test_changing_the_mode_proposes_again_without_javascript(client_as, long_memory):
    """ "Preview the split" after choosing another mode shows that mode's proposal."""
    body = client_as("editor").get(
        url(long_memory), {"by": "paragraphs", "by_was": "auto", **rows(3, 5)}
    )
    assert "2 details" in body.content.decode()


def test_the_same_mode_keeps_the_adjusted_boundaries(client_as, long_memory):
    """A preview in the mode already shown keeps the start lines as moved."""
    body = client_as("editor").get(url(long_memory), {"by": "auto", "by_was": "auto", **rows(3, 5)})
    assert "3 details" in body.content.decode()  # the proposal has 4
    assert find(
        split_section(body.content.decode()), "input", type="hidden", name="by_was", value="auto"
    )


def test_an_empty_fragment_is_refused_with_its_lines(client_as, long_memory):
    """A boundary on a blank line gives a message naming the lines, and no preview."""
    body = client_as("editor").get(url(long_memory), rows(2, 3)).content.decode()
    assert "Fragment 2 (lines 2 to 2) would be empty: it holds only blank lines." in body
    assert "fragment-text" not in body


def test_applying_creates_the_header_and_goes_to_its_page(client_as, long_memory):
    """Applying redirects to the header, whose page links the original text."""
    client = client_as("editor")
    response = client.post(
        url(long_memory),
        {
            **rows(3, 4, 5),
            "type": "sequence",
            "summary": "Release SOP: build, tag, announce.",
            "header_category": "OPS_RULES",
            "header_importance": "90",
            "expected_updated_at": str(long_memory.updated_at),
        },
    )
    header = Memory.objects.get(content="Release SOP: build, tag, announce.")
    assert response.status_code == 302 and response.url == f"/memories/{header.pk}/"
    page = client.get(response.url).content.decode()
    fragments = find(page, "section", class_="memory-fragments")
    (made,) = [
        p for p in find_all(fragments, "p") if "This header was made by fragmenting" in text(p)
    ]
    assert links(made) == [(f"#{long_memory.display_id}", f"/memories/{long_memory.pk}/")]
    assert "1. Build with make release, after checking" in page
    assert Composite.objects.get(head=header).members.count() == 4


def test_applying_without_a_summary_is_refused_and_writes_nothing(client_as, long_memory):
    """No summary: a message, status 400, the split kept as it was, nothing written."""
    count = Memory.objects.count()
    response = client_as("editor").post(
        url(long_memory),
        {
            **rows(3, 5),
            "type": "theme",
            "header_category": "OPS_RULES",
            "header_importance": "90",
            "expected_updated_at": str(long_memory.updated_at),
        },
    )
    body = response.content.decode()
    assert response.status_code == 400
    assert "Write the header&#x27;s summary" in body
    assert starts(body) == ["3", "5"]  # the split kept as it was
    assert Memory.objects.count() == count


def test_applying_an_empty_detail_is_refused_and_writes_nothing(client_as, long_memory):
    """A split with an empty detail is refused on apply too."""
    count = Memory.objects.count()
    response = client_as("editor").post(
        url(long_memory),
        {
            **rows(2, 3),
            "type": "sequence",
            "summary": "A summary.",
            "header_category": "OPS_RULES",
            "header_importance": "90",
            "expected_updated_at": str(long_memory.updated_at),
        },
    )
    assert response.status_code == 400
    assert b"would be empty" in response.content
    assert Memory.objects.count() == count


def test_a_viewer_cannot_fragment(client_as, long_memory):
    """Fragmenting needs the editor role."""
    assert client_as("viewer").get(url(long_memory)).status_code == 403


def test_the_memory_page_offers_fragmenting_a_long_memory(client_as, long_memory, remember):
    """Editors see "Fragment it" on a long, structured memory, and not on a short one."""
    client = client_as("editor")
    page = client.get(f"/memories/{long_memory.pk}/").content.decode()
    offer = find(page, "section", class_="memory-fragments")
    assert links(offer) == [
        ("Fragment it into details under a header…", url(long_memory)),
        ("Every long memory of Ops", f"/structure/{long_memory.project_id}/"),
    ]
    short = remember("A short fact.")
    assert b"/structure/fragment/" not in client.get(f"/memories/{short.pk}/").content
    assert (
        b"/structure/fragment/"
        not in client_as("viewer").get(f"/memories/{long_memory.pk}/").content
    )


APPLY = {
    **rows(3, 4, 5),
    "type": "sequence",
    "summary": "My summary of the SOP.",
    "header_category": "OPS_RULES",
    "header_importance": "90",
}


def version_shown(client, memory) -> str:
    return version_in(client.get(url(memory)).content.decode())


def test_applying_after_the_text_changed_splits_nothing(client_as, long_memory):
    """Edited since the preview: 409, nothing split, the new text previewed, the summary kept."""
    client = client_as("editor")
    seen = version_shown(client, long_memory)
    changed = SOP.replace("1. Build with make release", "1. Build with make ship")
    memory_update(memory=long_memory, content=changed, actor="agent")
    count = Memory.objects.count()
    response = client.post(url(long_memory), {**APPLY, "expected_updated_at": seen})
    body = response.content.decode()
    assert response.status_code == 409
    assert Memory.objects.count() == count
    assert Memory.objects.get(pk=long_memory.pk).status != Memory.Status.ARCHIVED
    assert "was changed since this split was previewed: nothing was split" in body
    assert any("1. Build with make ship" in detail for detail in previewed(body))
    form = find(body, "form", id="fragment-form", method="post")
    assert dict(submitted(form))["summary"] == "My summary of the SOP."
    # The page now carries the new version: applying again splits the text it shows.
    fresh = version_in(body)
    assert fresh != seen
    client.post(url(long_memory), {**APPLY, "expected_updated_at": fresh})
    header = Memory.objects.get(content="My summary of the SOP.")
    details = Composite.objects.get(head=header).members.order_by("position")
    assert "make ship" in details[1].member.content


def test_applying_without_the_previewed_version_splits_nothing(client_as, long_memory):
    """An apply that does not say which text it previewed is refused like a stale one."""
    count = Memory.objects.count()
    response = client_as("editor").post(url(long_memory), APPLY)
    assert response.status_code == 409
    assert "did not say which version of the text" in response.content.decode()
    assert Memory.objects.count() == count


def test_a_preview_over_htmx_carries_the_version_of_the_text_it_split(client_as, long_memory):
    """The split section, refreshed alone, carries the version with it."""
    response = client_as("editor").get(url(long_memory) + "?by=items", HTTP_HX_REQUEST="true")
    body = response.content.decode()
    assert "<html" not in body
    assert [(e.name, attribute(e, "id")) for e in top(body)] == [("div", "split-section")]
    assert version_in(body) == str(long_memory.updated_at)


FAILOVER = (
    "# Failover of the primary database\n\n"
    "1. Stop writes: set the service read-only, then wait for the replica to catch up fully.\n"
    "2. Promote the replica with pg_ctl promote, and check that it accepts writes again.\n"
    "3. Point the service at the new primary, lift read-only, and watch the error rate."
)


def test_the_preview_leaves_the_title_heading_to_the_header(client_as, remember):
    """The proposed summary is the heading, so detail 1 is step 1 and the page says why; a
    summary that says something else (sent by the preview) keeps the heading in detail 1."""
    memory = remember(FAILOVER)
    client = client_as("editor")
    body = client.get(url(memory)).content.decode()
    assert previewed(body)[0] == FAILOVER.splitlines()[2]
    assert "Fragment 1 leaves out the title heading" in text(split_section(body))
    assert text(find(body, "textarea", name="summary")) == "Failover of the primary database"
    other = client.get(url(memory), {"summary": "Database runbook"}).content.decode()
    assert previewed(other)[0].startswith("# Failover of the primary database\n\n1. Stop writes")
    assert "leaves out the title heading" not in other


def test_applying_with_the_heading_as_summary_keeps_it_only_in_the_header(client_as, remember):
    memory = remember(FAILOVER)
    client = client_as("editor")
    seen = version_in(client.get(url(memory)).content.decode())
    response = client.post(
        url(memory),
        {
            **rows(4, 5),
            "type": "sequence",
            "summary": "Failover of the primary database",
            "header_category": "OPS_RULES",
            "header_importance": "90",
            "expected_updated_at": seen,
        },
    )
    assert response.status_code == 302
    header = Memory.objects.get(content="Failover of the primary database")
    details = Composite.objects.get(head=header).members.order_by("position")
    assert [m.member.content[:14] for m in details] == [
        "1. Stop writes",
        "2. Promote the",
        "3. Point the s",
    ]

"""The fragmentation page: preview, adjust, apply, and the memory page's links."""

import re

import pytest

from memadmin.composites.models import Composite
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update

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
    return f"/ledger/fragment/{memory.pk}/"


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


def start_boxes(body: str) -> list[str]:
    """Return the names of the start-line boxes a page shows."""
    return re.findall(r'name="(boundary-\d+-start)"', body)


def test_the_page_previews_the_proposed_split(client_as, long_memory):
    """The page proposes fragments, listing where each starts and its text."""
    body = client_as("editor").get(url(long_memory)).content.decode()
    assert len(start_boxes(body)) == 3
    assert '<pre class="fragment-text">2. Tag with git tag vX' in body
    assert "4 details" in body


def test_the_preview_counts_with_the_maps_counter_and_names_it(client_as, long_memory):
    """The fragment page sizes texts as the header map does, and says which counter that is."""
    body = client_as("editor").get(url(long_memory)).content.decode()
    assert "Token counts by the <strong>heuristic</strong> counter, the one the header map" in body


def test_the_header_summary_is_proposed_and_never_empty(client_as, long_memory):
    """The summary box starts with the memory's title line or first sentence."""
    body = client_as("editor").get(url(long_memory)).content.decode()
    box = body.split('name="summary"', 1)[1].split("</textarea>", 1)[0]
    assert box.split(">", 1)[1].strip()


def test_previewing_without_javascript_keeps_the_token_out_of_the_address(client_as, long_memory):
    """The preview buttons post: the CSRF token is never sent in a query string."""
    client = client_as("editor")
    body = client.get(url(long_memory)).content.decode()
    assert 'formmethod="get"' not in body
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
    assert body.lstrip().startswith('<div id="split-section"')
    assert "3 details" in body
    assert (
        "2. Tag with git tag vX and push the tag, so that the pipeline builds the images.\n3."
        in body
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
    assert 'name="by_was" value="auto"' in body.content.decode()


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
    assert "This header was made by fragmenting" in page
    assert f'href="/memories/{long_memory.pk}/"' in page
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
    assert len(start_boxes(body)) == 2
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
    assert url(long_memory).encode() in client.get(f"/memories/{long_memory.pk}/").content
    short = remember("A short fact.")
    assert b"/ledger/fragment/" not in client.get(f"/memories/{short.pk}/").content
    assert (
        b"/ledger/fragment/" not in client_as("viewer").get(f"/memories/{long_memory.pk}/").content
    )


APPLY = {
    **rows(3, 4, 5),
    "type": "sequence",
    "summary": "My summary of the SOP.",
    "header_category": "OPS_RULES",
    "header_importance": "90",
}


def version_shown(client, memory) -> str:
    body = client.get(url(memory)).content.decode()
    return body.split('name="expected_updated_at" value="', 1)[1].split('"', 1)[0]


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
    assert "1. Build with make ship" in body and "My summary of the SOP." in body
    # The page now carries the new version: applying again splits the text it shows.
    fresh = body.split('name="expected_updated_at" value="', 1)[1].split('"', 1)[0]
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
    assert f'name="expected_updated_at" value="{long_memory.updated_at}"' in body

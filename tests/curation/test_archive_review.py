"""Archiving one of a pair: a review page first (word diff, a reason), and never a stale page.

The near-duplicates page links each direction ("Archive #b, keep #a…") to a page showing the
two texts' word diff and asking a reason; only that page's POST archives, and it carries the
version of the memory it showed. A POST without that version is refused as a stale one is
(the project's rule, as `memory_edit` and `StaleEdit(unseen=True)` have it): 409, nothing
written.
"""

import pytest
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import attribute, find, find_all, links, text

from .conftest import pks_by_position, synced_store
from .test_embeddings import TEXTS, rows

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(project):
    """Two rewordings of one fact, in one category."""
    return [
        memory_create(project=project, category="OPS_RULES", content=content, actor="system")
        for content in (
            "Restart the scheduler after a DNS TTL change in eu-west.",
            "After a DNS TTL change in eu-west, restart the scheduler.",
        )
    ]


def archived(memory) -> bool:
    return Memory.objects.get(pk=memory.pk).status == Memory.Status.ARCHIVED


def review_fields(body: str, action: str) -> dict:
    """The hidden fields of the review page's archive form."""
    form = find(body, "form", method="post", action=action)
    return {
        attribute(field, "name"): attribute(field, "value") or ""
        for field in find_all(form, "input", type="hidden")
    }


def test_an_archive_without_the_version_shown_is_refused(pair, client_as):
    """No `expected_updated_at`, on a memory edited since: 409, said so, nothing written."""
    kept, target = pair
    memory_update(memory=target, content="Restart the scheduler after DNS changes.", actor="agent")
    events = AuditEvent.objects.count()
    url = reverse("curation:archive", args=[target.pk])
    response = client_as("editor").post(url, {"keep": kept.pk, "reason": "same fact"})
    assert response.status_code == 409
    assert "did not say which version" in response.content.decode()
    assert not archived(target)
    assert AuditEvent.objects.count() == events


def test_an_archive_from_an_older_version_is_refused(pair, client_as):
    """A version older than the memory's: 409 with the memory as it is now, nothing written."""
    kept, target = pair
    seen = target.updated_at
    memory_update(memory=target, content="Bounce the scheduler.", actor="agent", at_ms=seen + 1000)
    url = reverse("curation:archive", args=[target.pk])
    response = client_as("editor").post(
        url, {"keep": kept.pk, "reason": "same fact", "expected_updated_at": seen}
    )
    assert response.status_code == 409
    body = response.content.decode()
    assert "changed since the page was shown" in body and "Bounce the scheduler." in body
    assert not archived(target)
    # The refused page carries the version it shows now: archiving again is deliberate.
    again = client_as("editor").post(url, review_fields(body, url) | {"reason": "same fact"})
    assert again.status_code == 302 and archived(target)


def test_the_review_shows_the_word_diff_and_asks_a_reason(pair, client_as):
    """The review page shows what differs and archives nothing until its POST with a reason."""
    kept, target = pair
    url = reverse("curation:archive", args=[target.pk])
    editor = client_as("editor")
    page = editor.get(url, {"keep": kept.pk})
    assert page.status_code == 200
    body = page.content.decode()
    diff = find(body, "p", class_="word-diff")
    assert find_all(diff, "del") or find_all(diff, "ins")
    assert "rewording" in text(find(body, "p", class_="relation")).lower()
    assert not archived(target)
    fields = review_fields(body, url)
    assert fields["expected_updated_at"] == str(target.updated_at)
    assert fields["keep"] == str(kept.pk)
    without_reason = editor.post(url, fields)
    assert without_reason.status_code == 400 and not archived(target)
    done = editor.post(url, fields | {"reason": "one fact said twice"})
    assert done.status_code == 302 and archived(target)
    reason = Memory.objects.get(pk=target.pk).metadata["archive_reason"]
    assert reason == f"near-duplicate of #{kept.display_id}: one fact said twice"


def test_for_two_rewordings_the_review_proposes_a_merge(pair, client_as):
    """Two rewordings in one category: the review links the merge review of both."""
    kept, target = pair
    body = client_as("editor").get(reverse("curation:archive", args=[target.pk]), {"keep": kept.pk})
    merge = f"{reverse('memories:merge')}?ids={kept.pk}&ids={target.pk}"
    assert merge in [href for _, href in links(body.content.decode())]


def test_the_duplicates_page_links_the_review_not_a_one_click_archive(pair, client_as):
    """Each direction is a link to the review page; no form on the list archives."""
    kept, target = pair
    project = kept.project
    body = client_as("editor").get(reverse("curation:duplicates", args=[project.pk]))
    html = body.content.decode()
    review = f"{reverse('curation:archive', args=[target.pk])}?keep={kept.pk}"
    assert any(href.startswith(review + "&next=") for _, href in links(html))
    assert not find_all(html, "form", action=reverse("curation:archive", args=[target.pk]))


def test_a_viewer_can_neither_review_nor_archive(pair, client_as):
    """The review and the archive need an editor."""
    kept, target = pair
    url = reverse("curation:archive", args=[target.pk])
    viewer = client_as("viewer")
    assert viewer.get(url, {"keep": kept.pk}).status_code == 403
    assert viewer.post(url, {"keep": kept.pk, "reason": "x"}).status_code == 403
    assert not archived(target)


def test_a_pair_found_by_vectors_is_reviewed_as_a_paraphrase(tmp_path, client_as):
    """Two texts in other words with nearly one vector: the review calls them a rewording."""
    project = synced_store(tmp_path, TEXTS, embeddings=rows())
    first, second = pks_by_position(project)[:2]
    editor = client_as("editor")
    page = editor.get(reverse("curation:duplicates", args=[project.pk])).content.decode()
    review = next(
        href
        for _, href in links(page)
        if href.startswith(reverse("curation:archive", args=[second]) + f"?keep={first}")
    )
    assert review.endswith("&kind=embedding")
    body = editor.get(review).content.decode()
    assert "rewording" in text(find(body, "p", class_="relation")).lower()
    assert review_fields(body, reverse("curation:archive", args=[second]))["kind"] == "embedding"

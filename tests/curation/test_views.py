"""The curation pages: near-duplicates with their actions, suggestions, grouping, archiving."""

import pytest
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create
from memadmin.curation.models import Analysis
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.selectors import memories_version
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import attribute, field_error, find, find_all, links, submitted, text

THEME = [
    "Release train: tag the build with git tag before the release train leaves staging.",
    "Release train: staging gets the build an hour before the release train tag.",
    "Release train: the build tag is cut from staging for every release train.",
]


@pytest.fixture
def themed(project):
    """A project with a near-duplicate pair, a theme of three and an unrelated memory."""
    make = lambda text, importance=50, category="OPS_RULES": memory_create(  # noqa: E731
        project=project, category=category, content=text, importance=importance, actor="system"
    )
    pair = [
        make("Restart the scheduler after a DNS TTL change in eu-west."),
        make("After a DNS TTL change in eu-west, restart the scheduler.", category="ENV_STATE"),
    ]
    theme = [make(text, importance=60 + n) for n, text in enumerate(THEME)]
    other = make("Tabs are for tables only.")
    return project, pair, theme, other


def shown_version(pair) -> dict:
    """The fields of the review page archiving pair[1] and keeping pair[0], a reason given."""
    return {"keep": pair[0].pk, "expected_updated_at": pair[1].updated_at, "reason": "reordered"}


def test_the_page_says_computing_until_a_result_is_kept(themed, client_as, settings):
    """With no result kept and a backend that runs later, the page says it is computing."""
    project, *_ = themed
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    response = client_as("viewer").get(reverse("curation:duplicates", args=[project.pk]))
    assert response.status_code == 200
    assert b"Computing the near-duplicates" in response.content
    assert Analysis.objects.get(project=project).state == "queued"


def test_the_page_shows_each_pair_with_similarity_diff_and_actions(themed, client_as):
    """A cluster shows both memories, its similarity, the word diff and the three actions."""
    project, pair, _, _ = themed
    response = client_as("editor").get(reverse("curation:duplicates", args=[project.pk]))
    html = response.content.decode()
    assert "Computing" not in html
    assert f"#{pair[0].pk}" in html and f"#{pair[1].pk}" in html
    (shown,) = [
        found
        for found in find_all(html, "div", class_="duplicate-pair")
        if {f"#{pair[0].pk}", f"#{pair[1].pk}"} <= {name for name, _ in links(found)}
    ]
    (sentence, diff) = find_all(shown, "p")[:2]
    assert "lexical similarity" in text(sentence) and find(sentence, "strong")
    assert "word-diff" in attribute(diff, "class").split()
    assert find_all(diff, "del") or find_all(diff, "ins")
    # the pair spans two categories: no merge is offered, archiving is
    assert "a merge stays within one category" in html
    archive = f"{reverse('curation:archive', args=[pair[1].pk])}?keep={pair[0].pk}&next="
    assert any(href.startswith(archive) for _, href in links(shown))
    assert "Group as alternatives" in html


def test_a_threshold_out_of_range_is_named_at_its_box(themed, client_as):
    """A threshold above 1 is refused beside its box, which names the error."""
    project, *_ = themed
    url = reverse("curation:duplicates", args=[project.pk])
    html = client_as("viewer").get(url, {"threshold": "3"}).content.decode()
    assert "less than or equal to 1" in field_error(html, "id_threshold")


def test_a_group_without_a_head_is_refused_at_the_head_choice(themed, client_as):
    """No head chosen: the head's fieldset names the error, and nothing is made."""
    project, _, theme, _ = themed
    response = client_as("editor").post(
        reverse("curation:group", args=[project.pk]),
        {"ids": [m.pk for m in theme], "type": "theme"},
    )
    assert response.status_code == 400
    assert field_error(response.content.decode(), "id_head") == "This field is required."
    assert not Composite.objects.exists()


def test_a_cluster_in_one_category_offers_the_merge_review(project, client_as):
    """Memories of one category link to the merge review page with their ids."""
    first, second = (
        memory_create(project=project, category="OPS_RULES", content=text, actor="system")
        for text in (
            "Rotate the TLS keys of the edge every 90 days.",
            "Every 90 days rotate the edge TLS keys.",
        )
    )
    html = client_as("editor").get(reverse("curation:duplicates", args=[project.pk])).content
    assert f"{reverse('memories:merge')}?ids={first.pk}&amp;ids={second.pk}".encode() in html


def test_a_viewer_sees_no_actions(themed, client_as):
    """A viewer sees the clusters but no merge, archive or group action."""
    project, *_ = themed
    html = client_as("viewer").get(reverse("curation:duplicates", args=[project.pk])).content
    assert b"Merge" not in html and b"Archive #" not in html


def test_archiving_one_of_a_pair_keeps_the_other(themed, client_as):
    """Archive goes through the archive service, its reason naming the memory kept."""
    _, pair, _, _ = themed
    url = reverse("curation:archive", args=[pair[1].pk])
    response = client_as("editor").post(url, {**shown_version(pair), "next": "/curation/"})
    assert response.status_code == 302 and response["Location"] == "/curation/"
    pair[1].refresh_from_db()
    assert pair[1].status == "archived"
    assert pair[1].metadata["archive_reason"] == (
        f"near-duplicate of #{pair[0].display_id}: reordered"
    )
    assert Memory.objects.get(pk=pair[0].pk).status == "active"


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "/\\evil.example/", "javascript:x"]
)
def test_an_archive_never_goes_back_off_this_site(themed, client_as, target):
    """A `next` another site's (to a browser, `/\\host` is one) goes to the duplicates page."""
    _, pair, _, _ = themed
    url = reverse("curation:archive", args=[pair[1].pk])
    response = client_as("editor").post(url, {**shown_version(pair), "next": target})
    assert response.status_code == 302
    assert response["Location"] == reverse("curation:duplicates", args=[pair[1].project_id])
    pair[1].refresh_from_db()
    assert pair[1].status == "archived"


def test_archiving_a_memory_changed_since_the_page_is_refused(themed, client_as):
    """An archive posted with an older version of the memory is refused; nothing changes."""
    _, pair, _, _ = themed
    url = reverse("curation:archive", args=[pair[1].pk])
    stale = {**shown_version(pair), "expected_updated_at": pair[1].updated_at - 1}
    response = client_as("editor").post(url, stale)
    assert response.status_code == 409
    assert b"changed since the page was shown" in response.content
    assert Memory.objects.get(pk=pair[1].pk).status == "active"


def test_a_viewer_cannot_archive(themed, client_as):
    """Archiving needs an editor."""
    _, pair, _, _ = themed
    response = client_as("viewer").post(reverse("curation:archive", args=[pair[1].pk]))
    assert response.status_code == 403
    assert Memory.objects.get(pk=pair[1].pk).status == "active"


def test_a_suggestion_proposes_the_most_important_head(themed, client_as):
    """The theme of three is suggested, headed by its most important memory."""
    project, _, theme, _ = themed
    html = client_as("editor").get(reverse("curation:suggestions", args=[project.pk])).content
    html = html.decode()
    assert "Make a theme composite of these" in html
    proposed = [
        item
        for item in find_all(html, "li")
        if "proposed head" in text(item) and find_all(item, "a")
    ]
    assert [links(item)[0][0] for item in proposed] == [f"#{theme[2].display_id}"]


def test_grouping_shows_the_composite_first_and_makes_nothing(themed, client_as):
    """The group page only shows what would be made; no composite exists after a GET."""
    project, _, theme, _ = themed
    query = "&".join(f"ids={m.pk}" for m in theme)
    response = client_as("editor").get(f"{reverse('curation:group', args=[project.pk])}?{query}")
    assert response.status_code == 200
    assert b"Make the composite" in response.content
    assert b"Theme: release, train, tag, build, staging." in response.content
    heads = find_all(response.content.decode(), "input", type="radio", name="head")
    (chosen,) = [radio for radio in heads if "checked" in radio.attributes]  # the most important
    assert (attribute(chosen, "value"), attribute(chosen, "id")) == (str(theme[2].pk), "id_head_2")
    assert all("required" in radio.attributes for radio in heads)
    assert not Composite.objects.exists()


def test_confirming_a_group_makes_the_composite(themed, client_as):
    """The confirmation makes a theme composite headed by the chosen memory."""
    project, _, theme, _ = themed
    response = client_as("editor").post(
        reverse("curation:group", args=[project.pk]),
        {
            "ids": [m.pk for m in theme],
            "type": "theme",
            "head": str(theme[2].pk),
            "reason": "one train",
            "version": memories_version(theme),
        },
    )
    composite = Composite.objects.get()
    assert response.status_code == 302
    assert composite.type == "theme" and composite.head_id == theme[2].pk
    assert sorted(composite.members.values_list("member_id", flat=True)) == sorted(
        [theme[0].pk, theme[1].pk]
    )


def test_confirming_a_group_with_a_new_header(themed, client_as):
    """A new header memory is created from the text given and heads all the memories."""
    project, _, theme, _ = themed
    client_as("editor").post(
        reverse("curation:group", args=[project.pk]),
        {
            "ids": [m.pk for m in theme],
            "type": "theme",
            "head": "new",
            "header_text": "Theme: release train.",
            "header_category": "OPS_RULES",
            "version": memories_version(theme),
        },
    )
    composite = Composite.objects.get()
    assert composite.head.content == "Theme: release train."
    assert composite.members.count() == 3


def test_a_covered_group_is_no_longer_suggested(themed, client_as):
    """Once one composite holds the group, it is not suggested again."""
    project, _, theme, _ = themed
    composite_create(head=theme[0], type="theme", members=theme[1:], actor="system")
    html = client_as("viewer").get(reverse("curation:suggestions", args=[project.pk])).content
    assert b"Make a theme composite" not in html
    assert b"0 suggestions" in html


def test_the_memory_page_lists_related_memories_and_shared_composites(themed, client_as):
    """The memory page shows its nearest memories and the composites they share."""
    project, _, theme, _ = themed
    composite_create(
        head=theme[0], type="theme", members=[theme[1]], title="Trains", actor="system"
    )
    client_as("viewer").get(reverse("curation:duplicates", args=[project.pk]))
    html = client_as("viewer").get(reverse("memories:detail", args=[theme[0].pk])).content
    html = html.decode()
    related = find(html, "section", class_="related-memories")
    assert text(find(related, "h2")) == "Related memories"
    (item,) = [
        item
        for item in find_all(find(related, "ol", class_="related-list"), "li")
        if links(item)[0][1] == reverse("memories:detail", args=[theme[1].pk])
    ]
    assert "theme “Trains”" in [name for name, _ in links(item)]  # the composite they share


def test_the_navigation_links_curation(client_as, db):
    """Every page's navigation links the curation pages."""
    html = client_as("viewer").get(reverse("curation:index")).content.decode()
    here = find_all(find(html, "nav", aria_label="Main"), "a", aria_current="page")
    assert [(text(link), attribute(link, "href")) for link in here] == [("Curation", "/curation/")]


def test_a_project_of_one_memory_gets_empty_lists(project, client_as):
    """One memory: no cluster, no suggestion, no related memory, and no error."""
    memory = memory_create(project=project, category="OPS_RULES", content="Alone.", actor="system")
    viewer = client_as("viewer")
    duplicates = viewer.get(reverse("curation:duplicates", args=[project.pk]))
    assert b"0 clusters" in duplicates.content
    assert (
        b"0 suggestions" in viewer.get(reverse("curation:suggestions", args=[project.pk])).content
    )
    detail = viewer.get(reverse("memories:detail", args=[memory.pk])).content
    assert b"No related memory" in detail


def test_asking_again_recomputes_the_analysis(themed, client_as):
    """ "Try again" (an editor's POST) computes the analysis anew and returns to the page."""
    project, *_ = themed
    client_as("editor").get(reverse("curation:duplicates", args=[project.pk]))
    Analysis.objects.filter(project=project).update(notices=["from the run before"])
    response = client_as("editor").post(reverse("curation:refresh", args=[project.pk]))
    assert response.status_code == 302
    analysis = Analysis.objects.get(project=project)
    assert analysis.state == "done" and analysis.notices == []


def test_a_failed_analysis_says_why_and_offers_to_try_again(themed, client_as, monkeypatch):
    """A run that fails is not retried on every view: the page shows the error and a button."""
    project, *_ = themed

    def broken(project):
        raise RuntimeError("the disk is full")

    monkeypatch.setattr("memadmin.curation.tasks.analysis_refresh", broken)
    editor = client_as("editor")
    html = editor.get(reverse("curation:duplicates", args=[project.pk])).content.decode()
    assert "The last analysis failed: RuntimeError: the disk is full" in html
    assert "Try again" in html
    assert Analysis.objects.get(project=project).state == "failed"
    monkeypatch.undo()
    editor.post(reverse("curation:refresh", args=[project.pk]))
    assert Analysis.objects.get(project=project).state == "done"


def test_variants_are_shown_alike_with_no_archive(project, client_as):
    """One sentence about two environments: listed as alike, differing words marked, no action."""
    staging, canary = (
        memory_create(project=project, category="OPS_RULES", content=content, actor="system")
        for content in (
            "Feature flags of the billing service are read from Consul in staging.",
            "Feature flags of the billing service are read from Consul in canary.",
        )
    )
    html = client_as("editor").get(reverse("curation:duplicates", args=[project.pk]))
    html = html.content.decode()
    assert "0 clusters" in html
    alike = find(html, "section", class_="alike-pairs")
    (pair,) = find_all(alike, "div", class_="alike-pair")
    diff = find(pair, "p", class_="word-diff")
    assert [text(node) for node in find_all(diff, "del") + find_all(diff, "ins")] == [
        "staging",
        "canary",
    ]
    assert reverse("curation:archive", args=[canary.pk]) not in html
    assert reverse("curation:archive", args=[staging.pk]) not in html


def group_form_of(page: str) -> dict:
    """Return what a browser posts from the group page's form as it stands."""
    (form,) = find_all(page, "form", method="post", class_="stacked")
    posted: dict = {}
    for name, value in submitted(form):
        posted.setdefault(name, []).append(value)
    posted.pop("csrfmiddlewaretoken", None)
    return posted


@pytest.mark.parametrize("meanwhile", ["edited", "archived"])
def test_grouping_memories_saved_since_the_page_makes_nothing(themed, client_as, meanwhile):
    """A memory of the group was edited or archived after the page was shown: 409, nothing
    made, the group listed as it is now; confirming that page makes the composite."""
    project, _, theme, _ = themed
    client = client_as("editor")
    url = reverse("curation:group", args=[project.pk])
    page = client.get(url, {"ids": [m.pk for m in theme]}).content.decode()
    posted = {**group_form_of(page), "head": [str(theme[0].pk)]}
    if meanwhile == "edited":
        memory_update(memory=theme[1], actor="agent", content="Trains leave at nine, changed.")
    else:
        memory_archive(memory=theme[1], actor="agent", reason="gone")
    before = (Composite.objects.count(), AuditEvent.objects.count())
    response = client.post(url, posted)
    body = response.content.decode()
    assert response.status_code == 409
    assert "since the page was shown" in body
    assert (Composite.objects.count(), AuditEvent.objects.count()) == before
    again = {**group_form_of(body), "head": [str(theme[0].pk)]}
    assert client.post(url, again).status_code == 302
    assert Composite.objects.count() == 1


def test_grouping_that_says_no_version_makes_nothing(themed, client_as):
    """A confirmation without the group's version is refused like a stale one."""
    project, _, theme, _ = themed
    response = client_as("editor").post(
        reverse("curation:group", args=[project.pk]),
        {"ids": [m.pk for m in theme], "type": "theme", "head": str(theme[0].pk)},
    )
    assert response.status_code == 409
    assert "did not say which versions" in response.content.decode()
    assert not Composite.objects.exists()

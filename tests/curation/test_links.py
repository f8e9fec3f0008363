"""The curation pages' action links, followed: each lands with the memories and the type it names.

The links are built from the cluster (or suggestion) alone, so the page's own query (its
thresholds, its page) never rides along to the merge or group page.
"""

import pytest
from django.urls import reverse

from memadmin.memories.services import memory_create
from tests.html_tree import attribute, find
from tests.links import asked, href

pytestmark = pytest.mark.django_db

THEME = [
    "Release train: tag the build with git tag before the release train leaves staging.",
    "Release train: staging gets the build an hour before the release train tag.",
    "Release train: the build tag is cut from staging for every release train.",
]


@pytest.fixture
def pair(project):
    """Two near-duplicate memories of one category."""
    return [
        memory_create(project=project, category="OPS_RULES", content=text, actor="system")
        for text in (
            "Rotate the TLS keys of the edge every 90 days.",
            "Every 90 days rotate the edge TLS keys.",
        )
    ]


@pytest.fixture
def theme(project):
    """Three related memories no composite holds, the last the most important."""
    return [
        memory_create(
            project=project, category="OPS_RULES", content=text, importance=60 + n, actor="system"
        )
        for n, text in enumerate(THEME)
    ]


def test_a_clusters_merge_and_group_links_land_with_its_memories(client_as, project, pair):
    """Merge… names the pair; each Group… link names the pair and its composite type."""
    client = client_as("editor")
    page = client.get(reverse("curation:duplicates", args=[project.pk]), {"threshold": "0.3"})
    actions = find(page.content.decode(), "p", class_="actions")
    ids = [str(memory.pk) for memory in pair]

    merge = client.get(href(actions, "Merge…"))
    assert merge.status_code == 200
    assert asked(merge) == {"ids": ids}
    assert merge.context["sources"] == pair

    for label, kind in (("Group as alternatives…", "alternatives"), ("Group as a theme…", "theme")):
        group = client.get(href(actions, label))
        assert group.status_code == 200
        assert asked(group) == {"ids": ids, "type": [kind]}
        assert group.context["memories"] == pair
        assert group.context["form"].initial["type"] == kind


def test_a_suggestions_link_lands_on_the_theme_of_its_memories(client_as, project, theme):
    """Make a theme composite of these… names the suggestion's memories and the theme type."""
    client = client_as("editor")
    page = client.get(reverse("curation:suggestions", args=[project.pk]), {"page": "1"})
    link = find(page.content.decode(), "a", class_="button")
    group = client.get(attribute(link, "href"))
    assert group.status_code == 200
    assert sorted(group.wsgi_request.GET.getlist("ids")) == sorted(str(m.pk) for m in theme)
    assert group.wsgi_request.GET.getlist("type") == ["theme"]
    assert "page" not in group.wsgi_request.GET
    assert sorted(m.pk for m in group.context["memories"]) == sorted(m.pk for m in theme)
    assert group.context["head"] == theme[2]

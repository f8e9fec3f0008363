"""The memory list's filters forgive: any case, part of a name, live by default, moves that fit."""

import pytest

from memadmin.core.clock import now_ms
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from tests.html_tree import attribute, find, find_all

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(project):
    made = {
        name: memory_create(project=project, category=category, content=text, actor="agent")
        for name, category, text in [
            ("rule", "OPS_RULES", "Deploy on Tuesdays."),
            ("env", "ENV_STATE", "Node three is drained."),
            ("old", "OPS_RULES", "Deploy on Fridays."),
        ]
    }
    memory_archive(memory=made["old"], actor="agent", reason="replaced")
    return made


def shown(client, query: str) -> str:
    return client.get(f"/memories/{query}").content.decode()


def test_category_matches_in_any_case_and_by_part(client_as, rows):
    """`ops` finds OPS_RULES; `state` finds ENV_STATE."""
    client = client_as("viewer")
    assert "Deploy on Tuesdays." in shown(client, "?category=ops")
    assert "Node three" not in shown(client, "?category=ops")
    assert "Node three" in shown(client, "?category=state")


def test_the_list_shows_live_memories_unless_asked(client_as, rows):
    """Without a status, archived memories are hidden; `any` and `archived` show them."""
    client = client_as("viewer")
    assert "Deploy on Fridays." not in shown(client, "")
    assert "2 memories" in shown(client, "")
    assert "Deploy on Fridays." in shown(client, "?status=any")
    assert "Deploy on Fridays." in shown(client, "?status=archived")


def test_expiring_soon_lists_only_what_expires_within_a_week(client_as, project, rows):
    """`expiring=7` keeps memories whose expiry falls in the next seven days."""
    Memory.objects.filter(pk=rows["rule"].pk).update(expires_at=now_ms() + 3 * 86_400_000)
    Memory.objects.filter(pk=rows["env"].pk).update(expires_at=now_ms() + 30 * 86_400_000)
    html = shown(client_as("viewer"), "?expiring=7")
    assert "Deploy on Tuesdays." in html
    assert "Node three" not in html


def offered_categories(html):
    """The values the bulk bar's category select offers."""
    category = find(
        find(html, "form", id="bulk-form"), "select", name="category", id="bulk-category"
    )
    return [attribute(option, "value") for option in find_all(category, "option")]


def test_a_move_from_all_projects_offers_only_common_categories(
    client_as, project, mc_project, rows
):
    """On "All projects" the move offers names both packs define; on one project, its own."""
    client = client_as("editor")
    everywhere = shown(client, "")
    assert "OPS_RULES" not in offered_categories(everywhere)
    assert "OPS_RULES" in offered_categories(shown(client, f"?project={project.pk}"))

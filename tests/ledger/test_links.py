"""The ledger's links, followed: the download is the block the page shows, at its settings;
the memory page's link lands on the memory's row."""

import pytest

from memadmin.memories.services import memory_create
from tests.html_tree import find
from tests.links import asked, href

pytestmark = pytest.mark.django_db


def test_the_download_link_gives_the_block_shown_at_the_pages_settings(client_as, project, sop):
    """Budget, mode, counter and tie-break ride along; the page number does not."""
    client = client_as("viewer")
    settings = {"budget": "4000", "mode": "headers", "counter": "heuristic", "tie_break": "id"}
    page = client.get(f"/ledger/{project.pk}/", {**settings, "page": "1"})
    shown = page.context["result"].rendered
    download = client.get(href(page.content.decode(), "Download"))
    assert download.status_code == 200
    assert asked(download) == {key: [value] for key, value in settings.items()}
    assert download["Content-Disposition"] == 'attachment; filename="ledger-ops-headers-4000.txt"'
    assert download.content.decode() == shown


def test_the_memory_pages_link_lands_on_its_row_in_the_ledger(client_as, project):
    """See its row in the ledger: pack mode, the memory found and marked, the row's anchor."""
    memories = [
        memory_create(project=project, category="ENV_STATE", content=f"Host {n} up.", actor="agent")
        for n in range(60)
    ]
    client = client_as("viewer")
    memory = memories[0]  # the oldest: last among equals, on the second page of rows
    detail = client.get(f"/memories/{memory.pk}/").content.decode()
    section = find(detail, "section", class_="memory-injection")
    address = href(section, "See its row in the ledger")
    assert address.endswith(f"#row-{memory.display_id}")
    ledger = client.get(address)
    assert asked(ledger) == {"mode": ["pack"], "find": [str(memory.display_id)]}
    assert ledger.context["found"] is True and ledger.context["page"].number == 2
    assert f'id="row-{memory.display_id}" class="injected found"' in ledger.content.decode()

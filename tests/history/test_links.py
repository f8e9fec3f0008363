"""The audit log's export links, followed: each export holds what the filtered log shows.

A store may hold a category the pack does not define, with any characters in its name.
"""

import csv
import io
import json

import pytest
from django.urls import reverse

from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from tests.html_tree import find
from tests.links import asked, href

pytestmark = pytest.mark.django_db

AWKWARD = "R&D #2 + 50% é 東京"


def body(response) -> str:
    return b"".join(response.streaming_content).decode()


def test_the_export_links_carry_the_filters_and_not_the_page(client_as, make_memory):
    """CSV and JSON export the events of the category, actor and kind filtered, whatever page."""
    memory = make_memory("Deploy with just deploy.")
    other = make_memory("Tabs are for tables.")
    Memory.objects.filter(pk=memory.pk).update(category=AWKWARD)  # as a sync would
    memory.refresh_from_db()
    memory_update(memory=memory, actor="historian", content="Deploy by hand.", reason="broken")
    memory_update(memory=other, actor="historian", content="Tabs for tables.", reason="style")
    client = client_as("viewer")
    filters = {"actor": "historian", "category": AWKWARD, "action": "edited", "since": "2000-01-01"}
    page = client.get(reverse("audit:index"), {**filters, "page": "1"}).content.decode()
    exports = find(page, "p", class_="exports")
    wanted = {key: [value] for key, value in filters.items()}

    exported = client.get(href(exports, "CSV"))
    assert asked(exported) == wanted
    rows = list(csv.DictReader(io.StringIO(body(exported))))
    assert [(row["category"], row["action"], row["reason"]) for row in rows] == [
        (AWKWARD, "edited", "broken")
    ]

    exported = client.get(href(exports, "JSON"))
    assert asked(exported) == wanted
    data = json.loads(body(exported))
    assert data["filters"] == filters
    assert [(event["category"], event["reason"]) for event in data["events"]] == [
        (AWKWARD, "broken")
    ]


def test_the_export_links_of_the_whole_log_have_no_query(client_as, make_memory):
    """With no filter, the links are the bare export addresses."""
    make_memory("Deploy with just deploy.")
    exports = find(
        client_as("viewer").get(reverse("audit:index")).content.decode(), "p", class_="exports"
    )
    assert href(exports, "CSV") == reverse("audit:export_csv")
    assert href(exports, "JSON") == reverse("audit:export_json")

"""The health queue: each kind of entry found, with the action resolving it; page and command."""

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from memadmin.composites.services import composite_create
from memadmin.core.clock import now_ms
from memadmin.core.hashing import normalized_hash
from memadmin.curation.analysis import analysis_refresh
from memadmin.curation.health import KINDS, health_report
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create, memory_update
from memadmin.projects.services import project_set_budget
from tests.html_tree import find, find_all, links, text

DAY_MS = 86_400_000


def make(project, text, **fields):
    return memory_create(
        project=project,
        category=fields.pop("category", "OPS_RULES"),
        content=text,
        actor="system",
        **fields,
    )


@pytest.fixture
def unhealthy(project):
    """A project with one memory of each kind the health queue lists."""
    project = project_set_budget(project=project, budget=500, actor="system")
    words = [
        "alpha",
        "bravo",
        "charlie",
        "delta",
        "echo",
        "foxtrot",
        "golf",
        "hotel",
        "india",
        "juliett",
        "kilo",
        "lima",
    ]
    permanent = [
        make(
            project,
            f"Rule {n}: " + " ".join(f"{word}{n}" for word in words) * 4,
            status="permanent",
            importance=90,
        )
        for n in range(12)
    ]
    unimportant = make(project, "Nobody said how much this matters.", importance=None)
    crowd = [make(project, f"{words[n]}{n} {words[n - 1]}{n}.") for n in range(12)]
    expiring = make(project, "The staging certificate is temporary.", importance=70)
    Memory.objects.filter(pk=expiring.pk).update(expires_at=now_ms() + 2 * DAY_MS)
    now = now_ms()
    stray = Memory.objects.create(
        project=project,
        category="LEGACY_NOTES",
        content="From an older pack.",
        normalized_hash=normalized_hash("From an older pack."),
        importance=70,
        first_seen_at=now,
        created_at=now,
        updated_at=now,
        last_seen_at=now,
    )
    header = make(project, "Release steps.", importance=70)
    detail = make(project, "Step one: tag.", importance=70)
    composite_create(head=header, type="sequence", members=[detail], actor="system")
    memory_update(memory=detail, content="Step one: tag the build.", actor="system")
    twins = [
        make(project, "Restart the scheduler after a DNS TTL change.", importance=70),
        make(
            project,
            "After a DNS TTL change, restart the scheduler.",
            importance=70,
            category="ENV_STATE",
        ),
    ]
    return {
        "project": project,
        "permanent": permanent,
        "unimportant": unimportant,
        "crowd": crowd,
        "expiring": expiring,
        "stray": stray,
        "header": header,
        "twins": twins,
    }


def entries_of(report, kind):
    return [entry for entry in report.entries if entry.kind == kind]


def test_every_kind_is_found_with_its_action(unhealthy):
    """Each planted problem is listed once, under its kind, linking to where it is resolved."""
    project = unhealthy["project"]
    report = health_report(project, analysis_refresh(project))
    dropped = entries_of(report, "dropped")
    assert dropped and all(e.memories[0].status == "permanent" for e in dropped)
    assert {e.memories[0].pk for e in dropped} < {m.pk for m in unhealthy["permanent"]}
    assert dropped[0].action == reverse("memories:edit", args=[dropped[0].memories[0].pk])
    [duplicates] = entries_of(report, "duplicates")
    assert {m.pk for m in duplicates.memories} == {m.pk for m in unhealthy["twins"]}
    assert duplicates.action == reverse("curation:duplicates", args=[project.pk]) + "#cluster-1"
    [stray] = entries_of(report, "unknown_category")
    assert stray.memories == [unhealthy["stray"]] and "LEGACY_NOTES" in stray.message
    [expiring] = entries_of(report, "expiring")
    assert expiring.memories == [unhealthy["expiring"]] and "expires in 1 day" in expiring.message
    [stale] = entries_of(report, "stale_header")
    assert stale.memories == [unhealthy["header"]] and stale.action == reverse("headermap:stale")
    importance = {e.memories[0].pk for e in entries_of(report, "importance")}
    assert importance == {unhealthy["unimportant"].pk} | {m.pk for m in unhealthy["crowd"]}


def test_the_default_importance_alone_is_no_problem(project):
    """A few memories at the default 50 are not a crowded band."""
    for n in range(3):
        make(project, f"Fact {n} about something else entirely {n}.")
    report = health_report(project, analysis_refresh(project))
    assert entries_of(report, "importance") == []


def test_the_command_prints_the_same_as_json(unhealthy):
    """`manage.py health --json` lists the entries with ids, message and action."""
    project = unhealthy["project"]
    out = StringIO()
    call_command("health", "--project", project.identity, "--json", stdout=out, stderr=StringIO())
    result = json.loads(out.getvalue())
    assert result["project"] == project.identity and result["budget"] == 500
    assert result["counts"]["unknown_category"] == 1
    assert result["counts"]["duplicates"] == 1
    stray = next(e for e in result["entries"] if e["kind"] == "unknown_category")
    assert stray["ids"] == [unhealthy["stray"].pk]
    assert stray["action"] == reverse("memories:edit", args=[unhealthy["stray"].pk])


def test_the_page_lists_and_filters_the_queue(unhealthy, client_as):
    """The health page lists every entry with its action; ?kind= shows only that kind."""
    project = unhealthy["project"]
    url = reverse("curation:health", args=[project.pk])
    html = client_as("viewer").get(url).content.decode()
    assert "Category the pack lacks (1)" in html
    (stray,) = find_all(
        find(html, "table", class_="health-queue"), "tr", class_="health-unknown_category"
    )
    resolve = find_all(stray, "td")[-1]
    assert [href for _, href in links(resolve)] == [
        reverse("memories:edit", args=[unhealthy["stray"].pk])
    ]
    only = client_as("viewer").get(url, {"kind": "expiring"}).content.decode()
    assert "expires in 1 day" in only and "LEGACY_NOTES" not in only


def test_the_queue_pages_keep_the_kind_shown(unhealthy, client_as, monkeypatch):
    """Page links keep a kind the queue knows and drop one it does not."""
    monkeypatch.setattr("memadmin.curation.views.ENTRIES_PER_PAGE", 1)
    project = unhealthy["project"]
    url = reverse("curation:health", args=[project.pk])
    report = health_report(project, analysis_refresh(project))
    kind = next(k for k in KINDS if len(entries_of(report, k)) >= 2)
    client = client_as("viewer")
    for query, expected in (
        ({"kind": kind}, f"{url}?kind={kind}&page=2"),
        ({"kind": "no-such-kind"}, f"{url}?page=2"),
    ):
        html = client.get(url, query).content.decode()
        nav = find(html, "nav", aria_label="Pages of the queue")
        assert links(nav) == [("Next", expected)]
        assert text(find(nav, "span", aria_current="page")).startswith("Page 1 of ")

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
from memadmin.curation.health import GROUP_FROM, KINDS, health_report
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
    """Each planted problem is listed, under its kind, linking to where it is resolved."""
    project = unhealthy["project"]
    report = health_report(project, analysis_refresh(project))
    [dropped] = entries_of(report, "dropped")  # more than a few: one row
    assert dropped.count >= GROUP_FROM and all(m.status == "permanent" for m in dropped.memories)
    assert {m.pk for m in dropped.memories} < {m.pk for m in unhealthy["permanent"]}
    assert dropped.action == reverse("ledger:page", args=[project.pk])
    [duplicates] = entries_of(report, "duplicates")
    assert {m.pk for m in duplicates.memories} == {m.pk for m in unhealthy["twins"]}
    assert duplicates.action == reverse("curation:duplicates", args=[project.pk]) + "#cluster-1"
    [stray] = entries_of(report, "unknown_category")
    assert stray.memories == [unhealthy["stray"]] and "LEGACY_NOTES" in stray.message
    [expiring] = entries_of(report, "expiring")
    assert expiring.memories == [unhealthy["expiring"]] and "expires in 1 day" in expiring.message
    [stale] = entries_of(report, "stale_header")
    assert stale.memories == [unhealthy["header"]] and stale.action == reverse("headermap:stale")
    unset, crowded = entries_of(report, "importance")
    assert unset.memories == [unhealthy["unimportant"]]
    assert {m.pk for m in crowded.memories} == {m.pk for m in unhealthy["crowd"]}


def test_a_crowded_default_importance_is_one_row_to_act_on_in_bulk(unhealthy, client_as):
    """ "12 memories share the default importance 50": one row, linking the list of exactly
    them, where an editor's bulk bar can set their importance."""
    project = unhealthy["project"]
    report = health_report(project, analysis_refresh(project))
    [crowded] = [e for e in entries_of(report, "importance") if e.count > 1]
    assert crowded.message == (
        "12 memories share the default importance 50: set their importance in bulk."
    )
    assert crowded.action_role == "editor"
    listed = client_as("editor").get(crowded.action)
    assert listed.status_code == 200
    shown = {
        href
        for href in (h for _, h in links(listed.content.decode()))
        if href.startswith("/memories/") and href.rstrip("/").split("/")[-1].isdigit()
    }
    assert shown == {reverse("memories:detail", args=[m.pk]) for m in unhealthy["crowd"]}
    assert b"bulk" in listed.content


def test_the_queue_is_ranked_by_what_matters_for_the_injection(unhealthy):
    """Left out of the injection first, then stale headers, unread categories, duplicates,
    expiry, and importance last."""
    project = unhealthy["project"]
    report = health_report(project, analysis_refresh(project))
    kinds = list(dict.fromkeys(entry.kind for entry in report.entries))
    assert kinds == [
        "dropped",
        "stale_header",
        "unknown_category",
        "duplicates",
        "expiring",
        "importance",
    ]


def test_the_page_speaks_in_words_and_offers_a_viewer_no_refused_action(unhealthy, client_as):
    """No raw label ("stale_header") in the What column, and no link a viewer follows is 403."""
    project = unhealthy["project"]
    viewer = client_as("viewer")
    html = viewer.get(reverse("curation:health", args=[project.pk])).content.decode()
    table = find(html, "table", class_="health-queue")
    rows = find_all(table, "tr")[1:]
    whats = [text(find_all(row, "td")[0]) for row in rows]
    assert whats and not set(whats) & set(KINDS)
    assert all(" " in what for what in whats)
    targets = {href for row in rows for _, href in links(row)}
    refused = [href for href in sorted(targets) if viewer.get(href).status_code == 403]
    assert refused == []
    assert "share the default importance 50" in html


def test_the_default_importance_alone_is_no_problem(project):
    """A few memories at the default 50 are not a crowded band."""
    for n in range(3):
        make(project, f"Fact {n} about something else entirely {n}.")
    report = health_report(project, analysis_refresh(project))
    assert entries_of(report, "importance") == []


def test_the_command_prints_what_the_page_shows(unhealthy, client_as):
    """`manage.py health --json` lists the page's rows, in its order, in its words."""
    project = unhealthy["project"]
    out = StringIO()
    call_command("health", "--project", project.identity, "--json", stdout=out, stderr=StringIO())
    result = json.loads(out.getvalue())
    assert result["project"] == project.identity and result["budget"] == 500
    assert result["counts"]["unknown_category"] == 1
    assert result["counts"]["duplicates"] == 1
    stray = next(e for e in result["entries"] if e["kind"] == "unknown_category")
    assert stray["ids"] == [unhealthy["stray"].pk]
    assert stray["label"] == "Category no plugin reads"
    assert stray["action"] == reverse("memories:edit", args=[unhealthy["stray"].pk])
    html = client_as("editor").get(reverse("curation:health", args=[project.pk])).content
    rows = find_all(find(html.decode(), "table", class_="health-queue"), "tr")[1:]
    assert [text(find_all(row, "td")[2]) for row in rows] == [
        e["message"] for e in result["entries"]
    ]
    assert [text(find_all(row, "td")[0]) for row in rows] == [e["label"] for e in result["entries"]]


def test_the_page_lists_and_filters_the_queue(unhealthy, client_as):
    """The health page lists every entry with its action; ?kind= shows only that kind."""
    project = unhealthy["project"]
    url = reverse("curation:health", args=[project.pk])
    html = client_as("editor").get(url).content.decode()
    assert "Category no plugin reads (1)" in html
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

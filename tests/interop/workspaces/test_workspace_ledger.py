"""Plugin mode with workspaces: `manage.py ledger` against a second reading of upstream's rules.

The store is built with upstream's workspace DDL; three projects share NAMING and
CONSTRAINTS, their display names need XML escaping. For each member and each budget the
budget comes from a config file in the test's fake home, and the block printed must be the
one ``tests.reference_plugin`` (written from upstream's source, reading the file directly)
says the plugin injects, byte for byte.
"""

import io

import pytest
from django.core.management import call_command
from pytest_django.asserts import assertContains

from memadmin.interop.models import SyncRun, Workspace, WorkspaceMember
from memadmin.interop.writing.services import context_db_sync
from memadmin.projects.models import Project
from tests import reference_plugin
from tests.html_tree import find, find_all, links, text

from ..workspace_store import API, MEMBERS, NOW, OPS, WEB, build_team_store, make_row

pytestmark = pytest.mark.django_db


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A fake home whose config file sets the budget (``write(budget)``)."""
    home = tmp_path / "home"
    (home / ".config" / "cortexkit").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)

    def write(budget: int) -> None:
        (home / ".config" / "cortexkit" / "magic-context.jsonc").write_text(
            '{\n  // the user\'s own budget\n  "memory": {\n'
            f'    "injection_budget_tokens": {budget}, // tokens\n  }},\n}}\n',
            encoding="utf-8",
        )

    return write


def ledger(project: str, *extra: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(
        "ledger",
        *("--project", project, "--mode", "plugin", "--counter", "heuristic"),
        *("--now", str(NOW), *extra),
        stdout=out,
        stderr=err,
    )
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("budget", [500, 4000, 8000, 20000])
def test_each_member_gets_the_plugins_block_byte_for_byte(tmp_path, home, budget):
    """At each budget, from the user's config, every member's block is the plugin's."""
    path = build_team_store(tmp_path / "context.db")
    context_db_sync(path=path)
    home(budget)
    blocks = []
    for identity, _, _ in MEMBERS:
        out, err = ledger(identity)
        expected = reference_plugin.plugin_block(path, identity, budget=budget, now=NOW)
        assert expected, "the reference injects something at every budget"
        assert out == expected + "\n"
        assert f"Budget {budget} tokens: memory.injection_budget_tokens in " in err
        blocks.append(out)
    if budget < 4000:
        return
    assert any("[web&gt;ui]" in block for block in blocks)
    assert any("[api &lt;core&gt; &amp; co]" in block for block in blocks)
    assert any("[ops &amp; 'infra']" in block for block in blocks)


def test_both_tie_breaks_match_the_second_reading(tmp_path, home):
    """0.38's id tie-break and 0.46's recency tie-break both give the plugin's block."""
    path = build_team_store(tmp_path / "context.db")
    context_db_sync(path=path)
    home(4000)
    for tie_break in ("id", "recent"):
        out, _ = ledger(WEB, "--tie-break", tie_break)
        expected = reference_plugin.plugin_block(
            path, WEB, budget=4000, now=NOW, tie_break=tie_break
        )
        assert out == expected + "\n"


def test_only_shareable_rows_of_shared_categories_come_from_other_members(tmp_path, home):
    """A foreign line is shareable, live and NAMING or CONSTRAINTS; the floor lets each in."""
    path = build_team_store(tmp_path / "context.db")
    context_db_sync(path=path)
    home(20000)
    out, _ = ledger(API)
    foreign = [line for line in out.splitlines() if line.startswith("#") and " [" in line]
    assert foreign and not any("[api" in line for line in foreign)
    by_id = {m.upstream_id: m for m in Project.objects.get(identity=WEB).memories.all()}
    by_id |= {m.upstream_id: m for m in Project.objects.get(identity=OPS).memories.all()}
    for line in foreign:
        memory = by_id[int(line[1 : line.index(" ")])]
        assert memory.shareable and memory.category in ("NAMING", "CONSTRAINTS")
        assert memory.status in ("active", "permanent")


def test_the_sync_keeps_workspaces_and_members_as_versioned_rows(tmp_path):
    """Workspace, members, display names and paths are kept; a second sync writes no version."""
    path = build_team_store(tmp_path / "context.db")
    context_db_sync(path=path)
    workspace = Workspace.objects.get()
    assert workspace.name == "team <&>"
    assert workspace.share_categories == ["CONSTRAINTS", "NAMING"]
    members = {m.project_identity: m for m in workspace.members.all()}
    assert set(members) == {API, WEB, OPS}
    assert members[WEB].display_name == "web>ui" and members[WEB].display_path == "/work/web"
    assert members[WEB].project == Project.objects.get(identity=WEB)
    context_db_sync(path=path)
    assert workspace.history.count() == 1
    assert WorkspaceMember.history.count() == 3
    assert SyncRun.objects.latest("started_at").warnings == []


def test_the_workspaces_page_lists_members_linked_to_their_ledgers(tmp_path, client_as):
    """The Workspaces page names the workspace and links each member to its ledger."""
    path = build_team_store(tmp_path / "context.db")
    context_db_sync(path=path)
    web = Project.objects.get(identity=WEB)
    body = client_as("viewer").get("/interop/workspaces/").content.decode()
    assert "team &lt;&amp;&gt;" in body
    (row,) = find_all(find(find(body, "table", class_="workspaces"), "tbody"), "tr")
    members = dict(links(find_all(row, "td")[2]))
    assert members["web>ui"] == f"/ledger/{web.pk}/"
    team = Workspace.objects.get()
    detail = client_as("viewer").get(f"/interop/workspaces/{team.pk}/")
    assert "CONSTRAINTS, NAMING" in detail.content.decode()
    page = client_as("viewer").get(f"/ledger/{web.pk}/?counter=heuristic").content.decode()
    crumbs = find(page, "p", class_="crumbs")
    assert ("team <&>", f"/interop/workspaces/{team.pk}/") in links(crumbs)
    assert "workspace team <&>" in text(crumbs) and "What each member of workspace" in page


def _bad_store(tmp_path, **options):
    rows = [
        make_row(project_path=API, category="CONSTRAINTS", content="API limit.", shareable=1),
        make_row(project_path=WEB, category="CONSTRAINTS", content="Web limit.", shareable=1),
        make_row(project_path=OPS, category="NAMING", content="Ops name.", shareable=1),
    ]
    return build_team_store(tmp_path / "context.db", rows=rows, **options)


def test_share_categories_that_is_no_json_list_shares_nothing_and_says_so(tmp_path, home):
    """A share list that is not a JSON list is a sync warning; the ledger shares nothing."""
    path = _bad_store(tmp_path, share_categories='{"CONSTRAINTS": true}')
    run = context_db_sync(path=path)
    assert any("is not a JSON list" in w["problem"] for w in run.warnings)
    home(4000)
    out, err = ledger(API)
    assert out == reference_plugin.plugin_block(path, API, budget=4000, now=NOW) + "\n"
    assert "Web limit." not in out and "is not a JSON list" in err


def test_a_member_not_in_the_store_and_a_shared_display_name_are_named(tmp_path, home):
    """Both are sync warnings and page notices; those members share nothing, nothing errors."""
    members = (
        (API, "api", "/work/api"),
        (WEB, "twin", "/work/web"),
        (OPS, "twin", "/work/ops"),
        ("git:" + "9" * 40, "ghost", "/work/ghost"),
    )
    path = _bad_store(tmp_path, members=members, name_index=False)
    run = context_db_sync(path=path)
    problems = " ".join(w["problem"] for w in run.warnings)
    assert "the store holds no memory of project git:9999" in problems
    assert "the display name 'twin' is shared by 2 members" in problems
    home(4000)
    out, err = ledger(API)
    assert "Web limit." not in out and "Ops name." not in out and "API limit." in out
    assert "twin" in err


def test_a_config_file_that_does_not_parse_falls_back_to_the_default(tmp_path, home, client_as):
    """A broken config file is named; the budget is the default of the store's version.

    The store has 94 migrations, so it is read as 0.47 or later: 8,000 tokens.
    """
    path = _bad_store(tmp_path)
    context_db_sync(path=path)
    home(4000)
    config = tmp_path / "home" / ".config" / "cortexkit" / "magic-context.jsonc"
    config.write_text('{"memory": {"injection_budget_tokens": 4000', encoding="utf-8")
    _, err = ledger(API)
    assert "does not parse" in err
    assert "Budget 8000 tokens: magic-context's default for 0.47 and later" in err
    api = Project.objects.get(identity=API)
    response = client_as("viewer").get(f"/ledger/{api.pk}/")
    body = response.content.decode()
    assert "does not parse" in body and "the default budget is used" in body
    assertContains(
        response,
        '<input type="number" id="budget-number" name="budget" min="500" max="20000" step="1" '
        'value="8000" aria-describedby="budget-help">',
        count=1,
        html=True,
    )


def test_headers_mode_shares_the_same_way_and_members_add_up(tmp_path):
    """Headers mode carries the same foreign lines; each member's share sums to the whole."""
    from memadmin.core.tokens import HeuristicCounter
    from memadmin.ledger.counters import CounterChoice
    from memadmin.ledger.selectors import ledger_preview

    path = build_team_store(tmp_path / "context.db")
    context_db_sync(path=path)
    api = Project.objects.get(identity=API)
    preview = ledger_preview(
        api,
        budget=8000,
        counter=CounterChoice(HeuristicCounter()),
        now_ms=NOW,
        modes=("plugin", "headers"),
    )
    plugin, headers = preview.results["plugin"], preview.results["headers"]
    assert "[web&gt;ui]" in headers.rendered
    shares = preview.member_shares("plugin")
    assert [share.identity for share in shares] == [API, OPS, WEB]  # "api <", "ops &", "web>"
    assert sum(share.injected for share in shares) == plugin.coverage.injected
    assert sum(share.tokens for share in shares) + plugin.wrapper_tokens == plugin.used_tokens
    assert all(share.injected for share in shares)

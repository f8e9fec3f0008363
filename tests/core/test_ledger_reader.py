"""The plugin's row reader, workspace rules and the user's budget, in the pure core."""

import pytest

from memadmin.core.ledger import (
    LedgerMemory,
    Workspace,
    WorkspaceMember,
    assemble_read,
    member_order,
    parse_share_categories,
    read_for_mode,
    read_rows,
)
from memadmin.core.ledger.reader import never_injected_summary
from memadmin.core.tokens import HeuristicCounter
from memadmin.core.userconfig import user_budget, user_config_path, version_default

NOW = 1_800_000_000_000


def memory(id: int, category: str = "PROJECT_RULES", **fields) -> LedgerMemory:
    values = {
        "content": f"Fact {id}.",
        "status": "active",
        "importance": 50,
        "expires_at": None,
        "superseded_by": None,
        "last_seen_at": NOW - 5,
        "verified_at": None,
        "updated_at": NOW - id,
    }
    values.update(fields)
    return LedgerMemory(id=id, category=category, **values)


@pytest.mark.parametrize(
    ("fields", "column", "reason"),
    [
        ({"category": "OPS_RULES"}, "category", "does not know the category OPS_RULES"),
        ({"scope": "galaxy"}, "scope", "scope 'galaxy' is not one of project | ecosystem"),
        ({"source_type": None}, "source_type", "source_type None is not one of historian"),
        ({"first_seen_at": "yesterday"}, "first_seen_at", "first_seen_at 'yesterday' is not"),
        ({"verification_status": "maybe"}, "verification_status", "'maybe' is not one of"),
        ({"importance": "high"}, "importance", "importance 'high' is not a number"),
        ({"unread": (("seen_count", None),)}, "seen_count", "seen_count None is not a number"),
    ],
)
def test_the_reader_drops_a_live_row_upstream_would_not_read(fields, column, reason):
    """Each check of isMemoryRow drops the row and names the column and why."""
    # The parameters are shared by every run of this test in a process (mutmut runs it twice):
    # read them, never pop from them.
    fields = dict(fields)
    category = fields.pop("category", "PROJECT_RULES")
    kept, dropped = read_rows([memory(1, category, **fields), memory(2)], now_ms=NOW)
    assert [m.id for m in kept] == [2]
    (row,) = dropped
    assert row.column == column and reason in row.reason and row.reason.endswith("never injected")


def test_the_reader_reads_defaults_and_leaves_rows_that_are_not_live_alone():
    """NULL importance reads as 50 and NULL scope as project; an archived row is not checked."""
    kept, dropped = read_rows(
        [memory(1, importance=None, scope=None), memory(2, "OPS_RULES", status="archived")],
        now_ms=NOW,
    )
    assert not dropped
    assert kept[0].importance == 50 and kept[0].scope == "project"
    assert kept[1].status == "archived"


def test_pack_mode_reads_the_packs_categories_and_renders_in_its_order():
    """A pack-reading plugin knows OPS_RULES, drops NAMING, and renders OPS_RULES first."""
    rows = [memory(1, "NAMING"), memory(2, "OPS_RULES"), memory(3, "CONFIG_VALUES")]
    read = read_for_mode(
        rows, mode="pack", now_ms=NOW, pack_categories=("OPS_RULES", "CONFIG_VALUES")
    )
    result = assemble_read(read, budget=4000, counter=HeuristicCounter())
    assert result.rendered.index("<OPS_RULES>") < result.rendered.index("<CONFIG_VALUES>")
    assert [row.memory_id for row in result.dropped] == [1]
    assert "the project's pack does not define the category NAMING" in result.dropped[0].reason
    assert never_injected_summary(result.dropped, pack=True).startswith(
        "1 live memory is never injected by a plugin reading the pack"
    )


def test_the_summary_names_the_unknown_categories_once_with_their_counts():
    """One sentence for the categories the plugin does not know, each with its count."""
    rows = [memory(1, "OPS_RULES"), memory(2, "OPS_RULES"), memory(3, "ENV_STATE")]
    rows += [memory(4, "INCIDENTS"), memory(5, "CONFIG_VALUES")]
    result = assemble_read(
        read_for_mode(rows, mode="plugin", now_ms=NOW), budget=4000, counter=HeuristicCounter()
    )
    assert never_injected_summary(result.dropped) == (
        "4 live memories are never injected by the stock plugin: magic-context does not know "
        "the categories ENV_STATE (1), INCIDENTS (1) and OPS_RULES (2): never injected."
    )
    one = assemble_read(
        read_for_mode(rows[:2], mode="plugin", now_ms=NOW), budget=4000, counter=HeuristicCounter()
    )
    assert never_injected_summary(one.dropped) == (
        "2 live memories are never injected by the stock plugin: magic-context does not know "
        "the category OPS_RULES (2): never injected."
    )


@pytest.mark.parametrize(
    ("raw", "shared", "problem"),
    [
        (None, ("CONSTRAINTS",), None),
        ('["NAMING", "CONSTRAINTS", "NAMING"]', ("CONSTRAINTS", "NAMING"), None),
        ('{"CONSTRAINTS": 1}', (), "not a JSON list"),
        ('["CONSTRAINTS"', (), "not valid JSON"),
        ('["CONSTRAINTS", "OPS_RULES"]', (), "not one of the five current categories"),
        (7, (), "not text"),
    ],
)
def test_share_categories_are_read_as_upstream_normalises_them(raw, shared, problem):
    """NULL shares CONSTRAINTS; anything but a JSON list of the five shares nothing."""
    categories, found = parse_share_categories(raw)
    assert categories == shared
    assert (found is None) if problem is None else problem in found


def test_members_take_turns_by_display_name_then_identity_in_binary_order():
    """Upstream's ORDER BY display_name, project_path: code point order, NULL first."""
    members = [
        WorkspaceMember("git:b", "beta"),
        WorkspaceMember("git:a", "Zeta"),
        WorkspaceMember("git:c", None),
        WorkspaceMember("git:d", "beta"),
    ]
    assert [m.identity for m in member_order(members)] == ["git:c", "git:a", "git:b", "git:d"]


def test_a_foreign_line_carries_the_escaped_display_name_and_its_cost():
    """`#id [name]: text`, the name escaped like content, and the name counted in the cost."""
    workspace = Workspace(
        "git:own",
        member_order([WorkspaceMember("git:own", "own"), WorkspaceMember("git:x", "x <&> y")]),
        ("CONSTRAINTS",),
    )
    other = memory(9, "CONSTRAINTS", shareable=1, project="git:x", content="Limit <5>.")
    private = memory(10, "CONSTRAINTS", shareable=0, project="git:x")
    read = read_for_mode(
        [memory(1, project="git:own")],
        mode="plugin",
        now_ms=NOW,
        workspace=workspace,
        others=[other, private],
    )
    result = assemble_read(read, budget=4000, counter=HeuristicCounter())
    assert "#9 [x &lt;&amp;&gt; y]: Limit &lt;5&gt;." in result.rendered
    assert "#10" not in result.rendered
    row = next(row for row in result.rows if row.memory_id == 9)
    counter = HeuristicCounter()
    tags = counter.count("<CONSTRAINTS>\n</CONSTRAINTS>\n")
    assert row.tokens == counter.count("#9 [x &lt;&amp;&gt; y]: Limit &lt;5&gt;.\n") + tags


def test_the_user_budget_prefers_the_project_file_then_the_users(tmp_path):
    """Project file over user file (JSON with comments); without either, the version's default."""
    home = tmp_path / "home"
    environ = {"HOME": str(home)}
    user = user_config_path(environ)
    user.parent.mkdir(parents=True)
    user.write_text('{ /* mine */ "memory": {"injection_budget_tokens": 6000,}, }')
    root = tmp_path / "project"
    (root / ".cortexkit").mkdir(parents=True)
    (root / ".cortexkit" / "magic-context.jsonc").write_text(
        '// project\n{"memory": {"injection_budget_tokens": 2500}}'
    )
    assert user_budget(project_roots=(root,), environ=environ).tokens == 2500
    assert user_budget(environ=environ).tokens == 6000
    xdg = {"HOME": str(home), "XDG_CONFIG_HOME": str(tmp_path / "nowhere")}
    assert user_budget(environ=xdg, migrations=78).tokens == 4000
    assert user_budget(environ=xdg, migrations=94).tokens == 8000
    assert version_default(None)[0] == 4000


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ('{"memory": {"injection_budget_tokens": 40}}', "outside 500..20000"),
        ('{"memory": {"injection_budget_tokens": "lots"}}', "not a whole number"),
        ('{"memory": ', "does not parse"),
    ],
)
def test_a_bad_config_file_is_named_and_the_default_used(tmp_path, text, problem):
    """Nothing raises: the problem is named and the default stands."""
    environ = {"HOME": str(tmp_path)}
    path = user_config_path(environ)
    path.parent.mkdir(parents=True)
    path.write_text(text)
    budget = user_budget(environ=environ, migrations=78)
    assert budget.tokens == 4000 and "default up to 0.46" in budget.source
    assert problem in budget.problems[0]


def test_in_a_workspace_only_the_row_that_opened_a_category_is_charged_its_tags():
    """A row admitted in the fill phase after a later row of its category pays no tags."""
    workspace = Workspace(
        "git:a",
        member_order([WorkspaceMember("git:a", "a"), WorkspaceMember("git:b", "b")]),
        ("CONSTRAINTS",),
    )
    big = memory(1, "CONSTRAINTS", project="git:a", importance=90, content="x " * 1200)
    small = memory(2, "CONSTRAINTS", project="git:a", importance=10, content="y")
    read = read_for_mode([big, small], mode="plugin", now_ms=NOW, workspace=workspace)
    result = assemble_read(read, budget=1000, counter=HeuristicCounter())
    assert result.injected_ids == [1, 2]  # 2 in the floor phase, 1 in the fill
    assert sum(r.tokens for r in result.rows if r.injected) + result.wrapper_tokens == (
        result.used_tokens
    )

"""Plugin mode reads rows as the stock plugin does: checked against a second reading of the source.

``tests.reference_plugin`` reads the store file itself with upstream's SELECT (COALESCE of
importance, scope and shareable) and ``isMemoryRow``; memadmin reads its own synced rows
with ``core.ledger.reader``. Both must leave out the same rows, and order a missing
importance as 50. The demo project's reading is checked on the demo test's own build
(tests/devtools/test_demo.py), not on a build of its own.
"""

import io
import json

import pytest
from django.core.management import call_command

from memadmin.core.tokens import HeuristicCounter
from memadmin.interop.writing.services import context_db_sync
from memadmin.ledger.counters import CounterChoice
from tests import reference_plugin
from tests.upstream_store import BASE_TIME_MS, PROJECT, build_store, make_row

pytestmark = pytest.mark.django_db

NOW = BASE_TIME_MS + 1_000_000
HEURISTIC = CounterChoice(HeuristicCounter())


def custom_rows() -> list[dict]:
    """Rows in custom and stock categories, some without importance."""
    rows = []
    for n in range(12):
        rows.append(
            make_row(
                content=f"Ops rule {n}: restart the queue with care & patience.",
                category=("OPS_RULES", "ENV_STATE", "INCIDENTS")[n % 3],
                importance=None if n % 2 else 90,
            )
        )
    rows += [
        make_row(
            content="Configured ceiling: 40 workers.", category="CONFIG_VALUES", importance=60
        ),
        make_row(
            content="Unrated rule: tabs for tables.", category="PROJECT_RULES", importance=None
        ),
        make_row(content="Lesser rule: wrap at 100.", category="PROJECT_RULES", importance=40),
        make_row(content="Gone rule.", category="OPS_RULES", status="archived"),
        make_row(content="Old default: 8 retries.", category="CONFIG_DEFAULTS", importance=None),
    ]
    return rows


def run_ledger(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("ledger", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("budget", [500, 4000])
def test_a_synced_store_leaves_out_what_the_stock_reader_drops(tmp_path, budget):
    """The block is the plugin's and the dropped rows are those isMemoryRow rejects."""
    path = build_store(tmp_path / "context.db", rows=custom_rows())
    context_db_sync(path=path)
    out, err = run_ledger(
        *("--project", PROJECT, "--counter", "heuristic", "--budget", str(budget)),
        *("--now", str(NOW), "--format", "json"),
    )
    document = json.loads(out)
    expected = reference_plugin.plugin_block(path, PROJECT, budget=budget, now=NOW)
    assert document["rendered"] == expected
    dropped = {row["memory_id"]: row["reason"] for row in document["dropped"]}
    assert set(dropped) == reference_plugin.dropped_ids(path, PROJECT, now=NOW)
    assert len(dropped) == 12
    assert dropped[1] == "magic-context does not know the category OPS_RULES: never injected"
    assert dropped[2] == "magic-context does not know the category ENV_STATE: never injected"
    assert "12 live memories are never injected by the stock plugin" in err
    assert document["assumes"].startswith("the stock magic-context plugin")


def test_a_missing_importance_ranks_as_50(tmp_path):
    """Between importance 60 and 40, not below both: the stock reader reads NULL as 50."""
    path = build_store(tmp_path / "context.db", rows=custom_rows())
    context_db_sync(path=path)
    out, _ = run_ledger(
        *("--project", PROJECT, "--counter", "heuristic", "--budget", "4000"),
        *("--now", str(NOW), "--format", "json", "--tie-break", "id"),
    )
    order = [row["memory_id"] for row in json.loads(out)["rows"] if row["order"] is not None]
    # 13: importance 60; 14 and 17: NULL (50), by id; 15: importance 40.
    assert order == [13, 14, 17, 15]


def test_the_ledger_page_lists_dropped_rows_and_what_each_mode_assumes(client_as, project, sop):
    """The page says which plugin the figures assume, and lists every dropped row and why."""
    body = client_as("viewer").get(f"/ledger/{project.pk}/?counter=heuristic").content.decode()
    assert "These figures assume the stock magic-context plugin" in body
    assert "5 live memories are never injected by the stock plugin" in body
    assert "Never read by the plugin" in body
    assert body.count("magic-context does not know the category OPS_RULES: never injected") >= 4
    assert "a plugin that reads the project&#x27;s pack" in body


def test_values_the_sync_reads_otherwise_are_judged_as_the_store_has_them(tmp_path):
    """A NULL source type, seen count or verification status: the plugin drops those rows,
    so plugin mode does too, though memadmin holds them with a default. (The sync refuses a
    scope or a timestamp upstream never writes, so those never reach the ledger.)"""
    rows = [
        make_row(content="Kept rule.", importance=70),
        make_row(content="No source type.", source_type=None),
        make_row(content="No seen count.", seen_count=None),
        make_row(content="No verification status.", verification_status=None),
    ]
    path = build_store(tmp_path / "context.db", rows=rows, constraints=False)
    context_db_sync(path=path)
    out, _ = run_ledger(
        *("--project", PROJECT, "--counter", "heuristic", "--budget", "4000"),
        *("--now", str(NOW), "--format", "json"),
    )
    document = json.loads(out)
    dropped = {row["memory_id"]: row["column"] for row in document["dropped"]}
    assert set(dropped) == reference_plugin.dropped_ids(path, PROJECT, now=NOW)
    assert dropped == {2: "source_type", 3: "seen_count", 4: "verification_status"}
    assert document["rendered"] == reference_plugin.plugin_block(
        path, PROJECT, budget=4000, now=NOW
    )

"""`manage.py ledger` and `manage.py tokens`: output, parity with upstream, bad input."""

import io
import json
import sqlite3

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memadmin.core.ledger import LedgerMemory, assemble
from memadmin.core.tokens import HeuristicCounter, get_counter
from memadmin.interop.writing.services import context_db_sync
from memadmin.ledger.models import TokenCount
from tests.upstream_store import BASE_TIME_MS, PROJECT, build_store, make_row

from .conftest import NOW

pytestmark = pytest.mark.django_db


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_text_prints_the_block_and_a_summary(project, sop):
    """Text format prints the block on standard output, the summary on standard error.

    In pack mode the ops-six categories render in the pack's order (OPS_RULES first).
    """
    out, err = run(
        "ledger",
        *("--project", project.identity, "--mode", "pack", "--counter", "heuristic"),
        *("--now", str(NOW)),
    )
    header = sop["header"].pk
    assert out.startswith(f"<project-memory>\n<OPS_RULES>\n#{header}: Release SOP: three steps.")
    assert "</OPS_RULES>\n<ENV_STATE>\n" in out
    assert out.endswith("</project-memory>\n")
    assert (
        "pack mode, heuristic counter:" in err
        and "5 injected, 5 of 5 live memories reachable (100%)." in err
    )


def test_plugin_mode_injects_nothing_of_categories_the_stock_plugin_does_not_know(project, sop):
    """The stock plugin drops every ops-six row but CONFIG_VALUES: the summary says why."""
    out, err = run(
        "ledger", "--project", project.identity, "--counter", "heuristic", "--now", str(NOW)
    )
    assert out == ""
    assert "plugin mode, heuristic counter: 0 of" in err
    assert "5 live memories are never injected by the stock plugin" in err
    assert "magic-context does not know the categories" in err
    assert "OPS_RULES (4): never injected." in err


def test_json_prints_rows_and_totals(project, sop):
    """JSON format prints every row and the totals, ids as the agent sees them."""
    out, _ = run(
        "ledger",
        "--project",
        project.identity,
        "--mode",
        "headers",
        "--format",
        "json",
        "--budget",
        "600",
        "--counter",
        "heuristic",
        "--now",
        str(NOW),
    )
    document = json.loads(out)
    assert document["project"] == project.identity
    assert document["budget"] == 600 and document["mode"] == "headers"
    assert document["counter_name"] == "heuristic"
    assert {row["memory_id"] for row in document["rows"]} == {
        sop["header"].pk,
        sop["standalone"].pk,
        *(step.pk for step in sop["steps"]),
    }
    reasons = {row["memory_id"]: row["reason"] for row in document["rows"]}
    assert all(reasons[step.pk] == "lazy detail" for step in sop["steps"])
    assert document["coverage"]["share"] == 1.0


def upstream_rows():
    """Rows of a store whose ranking needs every rule: importance, recency, ties, skips."""
    long_text = "A long operational note that costs a great many tokens. " * 40
    return [
        make_row(content="Use scripts/release.sh VERSION for releases.", importance=90),
        make_row(content="Never force-push to main.", status="permanent", importance=None),
        make_row(content=long_text, importance=80, category="ARCHITECTURE"),
        make_row(
            content="Tabs <not> spaces & commas.",
            category="NAMING",
            importance=60,
            last_seen_at=BASE_TIME_MS + 5,
        ),
        make_row(
            content="The API port is 8080.",
            category="CONFIG_VALUES",
            importance=60,
            last_seen_at=BASE_TIME_MS + 9,
        ),
        make_row(content="An expired fact.", category="CONSTRAINTS", expires_at=BASE_TIME_MS - 1),
        make_row(content="Retired rule.", status="archived"),
        make_row(content="Short constraint.", category="CONSTRAINTS", importance=None),
    ]


def test_a_synced_store_previews_byte_for_byte_what_upstream_rules_inject(tmp_path):
    """For a synced store, plugin mode prints the very block the rows give upstream."""
    store = build_store(tmp_path / "context.db", rows=upstream_rows())
    context_db_sync(path=store)
    connection = sqlite3.connect(store)
    connection.row_factory = sqlite3.Row
    memories = [
        LedgerMemory(
            id=row["id"],
            category=row["category"],
            content=row["content"],
            status=row["status"],
            importance=row["importance"],
            expires_at=row["expires_at"],
            superseded_by=row["superseded_by_memory_id"],
            last_seen_at=row["last_seen_at"],
            verified_at=row["verified_at"],
            updated_at=row["updated_at"],
        )
        for row in connection.execute("SELECT * FROM memories")
    ]
    connection.close()
    for budget in (500, 700, 4000):
        expected = assemble(
            memories, budget=budget, counter=HeuristicCounter(), mode="plugin", now_ms=BASE_TIME_MS
        ).rendered
        out, _ = run(
            "ledger",
            "--project",
            PROJECT,
            "--budget",
            str(budget),
            "--counter",
            "heuristic",
            "--now",
            str(BASE_TIME_MS),
        )
        assert out == expected + "\n"
    assert "#4: Tabs &lt;not&gt; spaces &amp; commas." in out


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--budget", "499"], "between 500 and 20000"),
        (["--budget", "20001"], "between 500 and 20000"),
        (["--counter", "gpt"], "unknown token counter 'gpt'"),
    ],
)
def test_bad_input_is_refused_with_a_message_and_nothing_written(project, sop, arguments, message):
    """A budget out of range or an unknown counter: a clear message, nothing cached."""
    with pytest.raises(CommandError, match=message):
        run("ledger", "--project", project.identity, *arguments)
    assert not TokenCount.objects.exists()


def test_an_unknown_project_is_refused(db):
    """A project identity that is not in the store is named."""
    with pytest.raises(CommandError, match="No project 'git:nope'"):
        run("ledger", "--project", "git:nope")


def test_a_project_without_memories_is_refused(mc_project):
    """There is nothing to assemble for a project without memories."""
    with pytest.raises(CommandError, match="has no memories: nothing to assemble"):
        run("ledger", "--project", mc_project.identity, "--counter", "heuristic")
    assert not TokenCount.objects.exists()


def test_tokens_prints_count_tab_file(tmp_path):
    """Each file gets one `count<TAB>file` line, counted exactly as written."""
    first = tmp_path / "a.txt"
    first.write_text("Hello, world!\r\n", encoding="utf-8", newline="")
    second = tmp_path / "b.txt"
    second.write_text("😀" * 7, encoding="utf-8")
    out, _ = run("tokens", "--counter", "heuristic", str(first), str(second))
    counter = HeuristicCounter()
    assert out.splitlines() == [
        f"{counter.count('Hello, world!\r\n')}\t{first}",
        f"{counter.count('😀' * 7)}\t{second}",
    ]


def test_tokens_refuses_an_unknown_counter(tmp_path):
    """An unknown counter is named, with the known ones."""
    with pytest.raises(CommandError, match="the known counters are heuristic, claude"):
        run("tokens", "--counter", "gpt", str(tmp_path))


def test_tokens_counts_the_readable_files_and_names_the_others(tmp_path):
    """An unreadable file is reported; the others are still counted."""
    good = tmp_path / "good.txt"
    good.write_text("fine", encoding="utf-8")
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="1 of 2 file"):
        call_command(
            "tokens",
            "--counter",
            "heuristic",
            str(tmp_path / "missing.txt"),
            str(good),
            stdout=out,
            stderr=err,
        )
    assert out.getvalue() == f"2\t{good}\n"
    assert "missing.txt: cannot read it" in err.getvalue()


def test_without_claude_the_default_falls_back_and_says_so(project, sop, tmp_path, monkeypatch):
    """No counter asked for and claude not set up: the heuristic, with a notice."""
    monkeypatch.setenv("MEMADMIN_TOKENIZER_DIR", str(tmp_path))
    out, err = run("ledger", "--project", project.identity, "--mode", "pack", "--now", str(NOW))
    assert out.startswith("<project-memory>")
    assert "Using the heuristic" in err and "heuristic counter" in err


def test_asking_for_claude_where_it_is_not_set_up_is_refused(project, sop, tmp_path, monkeypatch):
    """An explicit --counter claude is not silently replaced."""
    monkeypatch.setenv("MEMADMIN_TOKENIZER_DIR", str(tmp_path))
    with pytest.raises(CommandError, match="not set up"):
        run("ledger", "--project", project.identity, "--counter", "claude")
    assert not TokenCount.objects.exists()


def test_tokens_counts_with_claude_by_default(tmp_path):
    """Without --counter, each file is counted by the claude counter, as the plugin counts."""
    text = "def f(x):\n    return x ** 2  # 日本語 😀 <|endoftext|>\n"
    path = tmp_path / "code.py"
    path.write_text(text, encoding="utf-8")
    out, err = run("tokens", str(path))
    assert out == f"{get_counter('claude').count(text)}\t{path}\n"
    assert err == ""


def test_tokens_without_claude_falls_back_and_says_so(tmp_path, monkeypatch):
    """No counter asked for and claude not set up: heuristic counts, with a notice."""
    monkeypatch.setenv("MEMADMIN_TOKENIZER_DIR", str(tmp_path / "nowhere"))
    path = tmp_path / "a.txt"
    path.write_text("a" * 35, encoding="utf-8")
    out, err = run("tokens", str(path))
    assert out == f"10\t{path}\n"
    assert "Using the heuristic" in err


def test_tokens_asking_for_claude_where_it_is_not_set_up_is_refused(tmp_path, monkeypatch):
    """An explicit --counter claude is not silently replaced by the heuristic."""
    monkeypatch.setenv("MEMADMIN_TOKENIZER_DIR", str(tmp_path / "nowhere"))
    path = tmp_path / "a.txt"
    path.write_text("text", encoding="utf-8")
    with pytest.raises(CommandError, match="not set up"):
        run("tokens", "--counter", "claude", str(path))

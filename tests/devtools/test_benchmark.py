"""The benchmark's store and report, at a tiny size (its timings are printed, never tested)."""

from dataclasses import replace

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.tokens import HeuristicCounter
from memadmin.devtools.benchmark import pages as pages_module
from memadmin.devtools.benchmark import server_memory
from memadmin.devtools.benchmark.figures import assembly_figures
from memadmin.devtools.benchmark.pages import page_figures
from memadmin.devtools.benchmark.report import print_report
from memadmin.devtools.benchmark.store import PASSWORD, READERS, build_store
from memadmin.ledger.counters import CounterChoice
from memadmin.memories.models import Memory

pytestmark = pytest.mark.django_db


def quiet(message: str) -> None:
    """Swallow progress messages."""


def test_the_store_has_the_sizes_asked_for_and_the_services_shapes():
    """Memories and composites as asked; members contiguous, never a head among its own."""
    store = build_store(memories=300, composites=20, small=60, progress=quiet)
    assert Memory.objects.count() == 300
    assert store.small.memories.count() == 60
    assert Composite.objects.count() == 20
    for composite in Composite.objects.prefetch_related("members"):
        positions = sorted(member.position for member in composite.members.all())
        assert positions == list(range(len(positions)))
        assert composite.head_id not in {m.member_id for m in composite.members.all()}
        assert composite.head.status != "archived"
    hub_in = CompositeMember.objects.filter(member_id=store.hub).count()
    assert hub_in >= 10 and not Composite.objects.filter(head_id=store.hub).exists()
    assert Memory.history.count() == 300 and CompositeMember.history.exists()


def test_the_report_lists_every_figure_and_target(monkeypatch):
    """Both sizes, both modes, every cache state, every page as each role, the admin beside.

    Each page is timed once after its first request, not REPEATS times: the timings are
    printed, never tested, and the repeats were two thirds of this test's time.
    """
    monkeypatch.setattr(pages_module, "REPEATS", 1)
    store = build_store(memories=300, composites=20, small=60, progress=quiet)
    counter = CounterChoice(HeuristicCounter())
    assembly = assembly_figures(store, counter, quiet)
    pages = page_figures(store, counter, quiet)
    lines: list[str] = []
    print_report(lines.append, assembly, pages)
    text = "\n".join(lines)
    assert len(assembly) == 12 and {f.memories for f in assembly} == {60, 300}
    assert all(f.counted == 0 for f in assembly if f.cache != "cold")
    assert "ledger, small" in text and "map, large" in text and "stale queue, large" in text
    assert "memory detail (in many composites), large" in text
    assert {f.role for f in pages.pages} == {"viewer", "editor", "admin"}
    assert [case.name for case in pages.cases] == [
        "all rows",
        "one project",
        "text search 'deploy'",
        "page 3",
        "sorted by importance",
    ]
    assert all(case.admin.queries > 0 and case.ratio > 0 for case in pages.cases)
    assert "the admin's" in text and "right after a write" in text
    assert "resident memory after the large ledger page" in text
    assert "query counts the same for the small and the large project, every page and role" in text
    served = []
    print_report(served.append, assembly, replace(pages, server_rss_mb=123.4))
    assert "resident memory after the large ledger page, in a server process: 123 MB" in "\n".join(
        served
    )


def test_the_server_process_serves_the_large_ledger_page_and_reads_its_memory():
    """What the child process runs: a login, the page, the resident size before and after."""
    store = build_store(memories=300, composites=20, small=60, progress=quiet)
    url = f"/ledger/{store.large.pk}/?counter=heuristic"
    answer = server_memory.main(url, READERS["viewer"], PASSWORD)
    assert answer["status"] == 200
    assert answer["before_mb"] > 0 and answer["after_mb"] > 0  # freed pages go back: it may shrink


def test_the_inner_run_refuses_the_real_database(monkeypatch):
    """`--inside` runs only in the temporary database the outer command made."""
    monkeypatch.delenv("MEMADMIN_BENCHMARK_DIR", raising=False)
    with pytest.raises(CommandError, match="only in the temporary database"):
        call_command("benchmark", "--inside")

"""Measure the benchmark store: ledger assembly with a cold, warm and hot count cache.

Assembly is timed end to end as the ledger page does it: prepare the store, read the
stored counts of its lines and texts (one query), assemble, write the counts made anew;
"read" is the second step (keying the memories' lines by id and content digest, the other
texts by their text, and the query), "assemble" the first and third. Pages are timed in `pages`.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass

from memadmin.core.clock import now_ms
from memadmin.core.ledger import BUDGET_DEFAULT, LedgerResult, PreparedStore, assemble_prepared
from memadmin.core.process_cache import reset_process_caches
from memadmin.ledger.count_cache import counts_for
from memadmin.ledger.counters import CounterChoice
from memadmin.ledger.inputs import LedgerInputs, ledger_inputs
from memadmin.ledger.models import TokenCount

from .store import BenchStore

ASSEMBLY_REPEATS = 3  # warm and hot assemblies are timed this often; the median is kept


@dataclass(frozen=True)
class AssemblyFigure:
    """One timed assembly: its size, mode and cache state, and where the time went."""

    memories: int
    eligible: int
    mode: str
    cache: str
    total_ms: float
    cpu_ms: float
    read_ms: float
    assemble_ms: float
    write_ms: float
    counted: int


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def combined(first: LedgerInputs, second: LedgerInputs) -> LedgerInputs:
    """Return both projects' inputs as one store (the benchmark gives no upstream ids)."""
    return LedgerInputs(
        memories=first.memories + second.memories,
        composites=first.composites + second.composites,
        pk_of={**first.pk_of, **second.pk_of},
    )


CACHE_STATES = {
    "cold": "no count stored anywhere",
    "warm": "counts in the database, a new process",
    "hot": "counts also in this process's memory",
}


def time_assembly(
    inputs: LedgerInputs, *, counter: CounterChoice, mode: str, cache: str
) -> AssemblyFigure:
    """Time one assembly at the default budget, the count cache first put in `cache`'s state."""
    if cache == "cold":
        TokenCount.objects.all().delete()
    if cache != "hot":
        reset_process_caches()
    start = time.perf_counter()
    cpu_start = time.process_time()
    prepared = PreparedStore(inputs.memories, inputs.composites, now_ms=now_ms())
    began = time.perf_counter()
    counted = prepared.counted()
    cached, store = counts_for(
        counter.counter, counted.texts, [counted.memories], [(counted.headers, counted.suffixes)]
    )
    read_ms = _ms(began)
    result: LedgerResult = assemble_prepared(
        prepared, budget=BUDGET_DEFAULT, counter=cached, mode=mode
    )
    assemble_ms = _ms(start) - read_ms
    written = time.perf_counter()
    counted = store.save()
    write_ms = _ms(written)
    cpu_ms = (time.process_time() - cpu_start) * 1000
    return AssemblyFigure(
        memories=len(inputs.memories),
        eligible=result.coverage.eligible,
        mode=mode,
        cache=cache,
        total_ms=_ms(start),
        cpu_ms=cpu_ms,
        read_ms=read_ms,
        assemble_ms=assemble_ms,
        write_ms=write_ms,
        counted=counted,
    )


def _median_assembly(
    inputs: LedgerInputs, *, counter: CounterChoice, mode: str, cache: str
) -> AssemblyFigure:
    """Time an assembly once cold (it stores every count), else ASSEMBLY_REPEATS times.

    Return the run of median total time, so one run slowed by the machine's other work does
    not stand for the code.
    """
    runs = 1 if cache == "cold" else ASSEMBLY_REPEATS
    figures = [time_assembly(inputs, counter=counter, mode=mode, cache=cache) for _ in range(runs)]
    return sorted(figures, key=lambda figure: figure.total_ms)[len(figures) // 2]


def assembly_figures(
    store: BenchStore, counter: CounterChoice, progress: Callable[[str], None]
) -> list[AssemblyFigure]:
    """Time both modes in each cache state, for the small project and for the whole store."""
    small = ledger_inputs(store.small)
    whole = combined(small, ledger_inputs(store.large))
    figures = []
    for inputs in (small, whole):
        for mode in ("plugin", "headers"):
            for cache in CACHE_STATES:
                progress(
                    f"assembling {len(inputs.memories):,} memories, {mode} mode, {cache} cache"
                )
                figures.append(_median_assembly(inputs, counter=counter, mode=mode, cache=cache))
    return figures

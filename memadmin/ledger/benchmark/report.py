"""Print the benchmark's figures as plain tables, with the targets they are held to."""

from collections.abc import Callable

from .figures import ASSEMBLY_REPEATS, CACHE_STATES, AssemblyFigure, PageFigure

PAGE_TARGET_MS = 150  # the ledger page, 2,000 candidates, warm counts
ASSEMBLY_TARGET_MS = 1000  # assembly of 100,000 candidates


def assembly_table(figures: list[AssemblyFigure]) -> list[str]:
    """Return the assembly figures as lines of a table."""
    lines = [
        f"{'memories':>9} {'eligible':>9} {'mode':<8} {'cache':<5} {'total ms':>9} "
        f"{'cpu ms':>7} {'read ms':>8} {'assemble':>9} {'write ms':>9} {'counted':>8}"
    ]
    for f in figures:
        lines.append(
            f"{f.memories:>9,} {f.eligible:>9,} {f.mode:<8} {f.cache:<5} {f.total_ms:>9.0f} "
            f"{f.cpu_ms:>7.0f} {f.read_ms:>8.0f} {f.assemble_ms:>9.0f} {f.write_ms:>9.0f} {f.counted:>8,}"
        )
    return lines


def page_table(figures: list[PageFigure]) -> list[str]:
    """Return the page figures as lines of a table."""
    lines = [f"{'page':<28} {'memories':>9} {'median ms':>10} {'queries':>8}"]
    for f in figures:
        lines.append(f"{f.name:<28} {f.memories:>9,} {f.median_ms:>10.0f} {f.queries:>8}")
    return lines


def verdicts(assembly: list[AssemblyFigure], pages: list[PageFigure]) -> list[str]:
    """Return one line per target: met or missed, with the figure it rests on."""
    by_name = {page.name: page for page in pages}
    ledger_small = by_name["ledger, small project"]
    largest = max(figure.memories for figure in assembly)

    def slower_mode(cache: str) -> AssemblyFigure:
        figures = [f for f in assembly if f.memories == largest and f.cache == cache]
        return max(figures, key=lambda f: f.total_ms)

    warm, hot = slower_mode("warm"), slower_mode("hot")
    flat = all(
        by_name[f"{page}, small project"].queries == by_name[f"{page}, large project"].queries
        for page in ("memory list", "map", "ledger")
    )

    def verdict(met: bool) -> str:
        return "met" if met else "MISSED"

    return [
        f"ledger page, {ledger_small.memories:,} candidates, warm counts: "
        f"{ledger_small.median_ms:.0f} ms (target < {PAGE_TARGET_MS} ms): "
        f"{verdict(ledger_small.median_ms < PAGE_TARGET_MS)}",
        f"assembly of {largest:,} candidates, warm counts, slower mode: "
        f"{warm.total_ms:.0f} ms ({warm.cpu_ms:.0f} ms CPU), hot {hot.total_ms:.0f} ms "
        f"(target < {ASSEMBLY_TARGET_MS} ms): {verdict(warm.total_ms < ASSEMBLY_TARGET_MS)}"
        + _busy_note(warm),
        f"query counts the same for the small and the large project on every page: {verdict(flat)}",
    ]


def _busy_note(figure: AssemblyFigure) -> str:
    """Say when the clock missed the target but the CPU time met it: the machine was busy."""
    if figure.total_ms >= ASSEMBLY_TARGET_MS > figure.cpu_ms:
        return " (the CPU time is under the target: other work on the machine slowed the clock)"
    return ""


def print_report(
    write: Callable[[str], None], assembly: list[AssemblyFigure], pages: list[PageFigure]
) -> None:
    """Write the three parts of the report."""
    write(
        "Ledger assembly at the default budget (prepare the store, read the stored counts, "
        "assemble, store new counts); warm and hot: the median of "
        f"{ASSEMBLY_REPEATS} runs; cpu: this process's CPU time."
    )
    write(
        "Cache: " + "; ".join(f"{name} = {meaning}" for name, meaning in CACHE_STATES.items()) + "."
    )
    for line in assembly_table(assembly):
        write("  " + line)
    write("")
    write("Pages (server time, median of 5 requests after a first one; queries per request):")
    for line in page_table(pages):
        write("  " + line)
    write("")
    write("Targets:")
    for line in verdicts(assembly, pages):
        write("  " + line)

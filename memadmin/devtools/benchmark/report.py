"""Print the benchmark's figures as plain tables, with the targets they are held to."""

from collections.abc import Callable

from .figures import ASSEMBLY_REPEATS, CACHE_STATES, AssemblyFigure
from .pages import REPEATS, ROLES, PageFigure, PageReport

PAGE_TARGET_MS = 150  # every page named in issue 13, hot, at 100,000 memories
AFTER_WRITE_TARGET_MS = 600  # the large ledger page right after a write
ASSEMBLY_TARGET_MS = 300  # assembly of 100,000 candidates, warm counts
RATIO_TARGET = 1.0  # the memory list for an editor against the stock admin changelist
MEMORY_TARGET_MB = 300  # resident memory after the large ledger page


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


def _label(page: PageFigure) -> str:
    return f"{page.name}{', ' + page.size if page.size else ''}"


def page_table(figures: list[PageFigure]) -> list[str]:
    """Return one line per page: for each role its median ms, CPU ms and queries."""
    heading = f"{'page':<44} {'memories':>8}"
    for role in ROLES:
        heading += f" | {role + ' ms (cpu) q':>20}"
    lines = [heading]
    by_page: dict[tuple[str, str], dict[str, PageFigure]] = {}
    for figure in figures:
        by_page.setdefault((figure.name, figure.size), {})[figure.role] = figure
    for roles in by_page.values():
        first = next(iter(roles.values()))
        line = f"{_label(first):<44} {first.memories:>8,}"
        for role in ROLES:
            f = roles.get(role)
            cell = f"{f.median_ms:.0f} ({f.cpu_ms:.0f}) {f.queries}" if f else "-"
            line += f" | {cell:>20}"
        lines.append(line)
    return lines


def verdict(met: bool) -> str:
    """Return "met" or "MISSED"."""
    return "met" if met else "MISSED"


def _busy(wall: float, cpu: float, target: float) -> str:
    """Say when the clock missed the target but the CPU time met it: the machine was busy."""
    if wall >= target > cpu:
        return " (CPU time under the target: the machine's other work slowed the clock)"
    return ""


def _missed(slow: list[PageFigure]) -> str:
    """Return the pages that missed, each once, with the time of each role that missed."""
    by_page: dict[str, list[str]] = {}
    for f in slow:
        by_page.setdefault(_label(f), []).append(f"{f.role} {f.median_ms:.0f} ({f.cpu_ms:.0f} CPU)")
    return "".join(f"; missed: {page}: {', '.join(roles)} ms" for page, roles in by_page.items())


def verdicts(assembly: list[AssemblyFigure], report: PageReport) -> list[str]:
    """Return one line per target: met or missed, with the figures it rests on."""
    lines = []
    for case in report.cases:
        lines.append(
            f"memory list, {case.name}, editor {case.ours.median_ms:.0f} ms against the admin's "
            f"{case.admin.median_ms:.0f} ms: {case.ratio:.2f}x "
            f"(target <= {RATIO_TARGET:.1f}x): {verdict(case.ratio <= RATIO_TARGET)}"
        )
    large = [f for f in report.pages if f.size == "large"] + [f for f in report.pages if not f.size]
    slow = [f for f in large if f.median_ms >= PAGE_TARGET_MS]
    worst = max(large, key=lambda f: f.median_ms)
    lines.append(
        f"every page at {worst.memories:,} memories, every role, under {PAGE_TARGET_MS} ms hot: "
        f"{verdict(not slow)} (slowest: {_label(worst)} as {worst.role}, "
        f"{worst.median_ms:.0f} ms, {worst.cpu_ms:.0f} ms CPU)" + _missed(slow)
    )
    small = {(f.name, f.role): f.queries for f in report.pages if f.size == "small"}
    uneven = [
        f for f in report.pages if f.size == "large" and small.get((f.name, f.role)) != f.queries
    ]
    lines.append(
        "query counts the same for the small and the large project, every page and role: "
        + verdict(not uneven)
        + "".join(
            f"; {f.name} as {f.role}: {small.get((f.name, f.role))} / {f.queries}" for f in uneven
        )
    )
    after = report.after_write
    lines.append(
        f"ledger page at {after.memories:,} memories right after a write: "
        f"{after.median_ms:.0f} ms ({after.cpu_ms:.0f} ms CPU) "
        f"(target < {AFTER_WRITE_TARGET_MS} ms): {verdict(after.median_ms < AFTER_WRITE_TARGET_MS)}"
        + _busy(after.median_ms, after.cpu_ms, AFTER_WRITE_TARGET_MS)
    )
    largest = max(figure.memories for figure in assembly)
    warm = max(
        (f for f in assembly if f.memories == largest and f.cache == "warm"),
        key=lambda f: f.total_ms,
    )
    lines.append(
        f"assembly of {largest:,} candidates, warm counts, slower mode: "
        f"{warm.total_ms:.0f} ms ({warm.cpu_ms:.0f} ms CPU) "
        f"(target < {ASSEMBLY_TARGET_MS} ms): {verdict(warm.total_ms < ASSEMBLY_TARGET_MS)}"
        + _busy(warm.total_ms, warm.cpu_ms, ASSEMBLY_TARGET_MS)
    )
    own = f"{report.rss_mb:.0f} MB (peak {report.peak_rss_mb:.0f} MB)"
    if report.server_rss_mb:
        lines.append(
            f"resident memory after the large ledger page, in a server process: "
            f"{report.server_rss_mb:.0f} MB (target < {MEMORY_TARGET_MB} MB): "
            f"{verdict(report.server_rss_mb < MEMORY_TARGET_MB)}; in this process, which "
            f"built the store and assembled it: {own}"
        )
    else:  # no server process read (a store no child process can open)
        lines.append(
            f"resident memory after the large ledger page, in this process: {own} "
            f"(target < {MEMORY_TARGET_MB} MB): {verdict(report.rss_mb < MEMORY_TARGET_MB)}"
        )
    return lines


def print_report(
    write: Callable[[str], None], assembly: list[AssemblyFigure], report: PageReport
) -> None:
    """Write the parts of the report: assembly, pages, the list beside the admin, targets."""
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
    write(
        f"Pages (server time, median of {REPEATS} requests after a first one, its CPU time "
        "in brackets, then queries per request), as each role:"
    )
    for line in page_table(report.pages):
        write("  " + line)
    write("")
    write("The memory list as an editor beside Django's stock admin changelist (as an admin):")
    write(f"  {'case':<28} {'memadmin ms (cpu) q':>22} {'admin ms (cpu) q':>20} {'ratio':>6}")
    for case in report.cases:
        ours, admin = case.ours, case.admin
        write(
            f"  {case.name:<28} {f'{ours.median_ms:.0f} ({ours.cpu_ms:.0f}) {ours.queries}':>22} "
            f"{f'{admin.median_ms:.0f} ({admin.cpu_ms:.0f}) {admin.queries}':>20} "
            f"{case.ratio:>5.2f}x"
        )
    write("")
    write("Targets:")
    for line in verdicts(assembly, report):
        write("  " + line)

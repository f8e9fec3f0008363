"""Time syncs of a large upstream-shaped store: what `manage.py bench_sync` runs in a child process.

    python -m memadmin.devtools.sync_benchmark --rows 100000 --work DIR

The child's MEMADMIN_VAR_DIR (set by the command) holds a fresh memadmin database, or
DATABASE_URL names a PostgreSQL database it flushes. Builds (once, kept under --work) a
store of --rows memories in three projects, a sixth in a category the pack lacks, one in a
thousand with `merged_from`, written a second apart, with upstream's WAL mode and FTS
triggers; then times the first (full) sync, an incremental sync that finds nothing changed,
and one after 1% of the rows changed and 0.5% were deleted, and prints each with its
target, met or missed, and the process's peak memory. Needs the repository's `tests`
package (the upstream store builder), so it runs from a checkout.
"""

import argparse
import multiprocessing
import os
import resource
import shutil
import sqlite3
import sys
import time
from pathlib import Path

CATEGORIES = ("PROJECT_RULES", "ARCHITECTURE", "CONSTRAINTS", "CONFIG_VALUES", "NAMING", "ODD_ONE")
PROJECTS = ("git:" + "1" * 40, "git:" + "2" * 40, "dir:3c3c3c3c3c")
TARGETS = {"first": 15.0, "unchanged": 0.5, "changed": 2.0}
MEMORY_TARGET_MB, MEMORY_TARGET_ROWS = 300, 450_000


def build(path: Path, rows: int) -> None:
    """Write an upstream-shaped store of ``rows`` memories at ``path``."""
    from tests.upstream_store import BASE_TIME_MS, build_store, make_row

    def row(i: int) -> dict:
        moment = BASE_TIME_MS + i * 1000
        return make_row(
            project_path=PROJECTS[i % len(PROJECTS)],
            category=CATEGORIES[i % len(CATEGORIES)],
            content=f"Fact {i}: releases go through scripts/release.sh with the version number.",
            importance=1 + i % 100,
            first_seen_at=moment,
            created_at=moment,
            updated_at=moment,
            last_seen_at=moment,
            merged_from="[1, 2]" if i % 1000 == 999 else None,
        )

    build_store(path, rows=(row(i) for i in range(rows)))


def change_upstream(path: Path) -> None:
    """Change 1% of the store's rows (a later time, as upstream writes) and delete 0.5%."""
    connection = sqlite3.connect(path)
    with connection:
        latest = connection.execute("SELECT max(updated_at) FROM memories").fetchone()[0]
        connection.execute(
            "UPDATE memories SET seen_count = seen_count + 1, updated_at = ? + id "
            "WHERE id % 100 = 7",
            (latest,),
        )
        connection.execute("DELETE FROM memories WHERE id % 200 = 3")
    connection.close()


class Phases:
    """A sync's progress callback noting the clock and CPU time spent in each phase."""

    def __init__(self):
        self.spent: dict[str, list[float]] = {}
        self.phase, self.mark = "start", (time.perf_counter(), time.process_time())

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase != self.phase:
            self.end(phase)

    def end(self, following: str = "rest") -> str:
        """Close the current phase (the next is ``following``); return the phases so far."""
        now = (time.perf_counter(), time.process_time())
        spent = self.spent.setdefault(self.phase, [0.0, 0.0])
        spent[0] += now[0] - self.mark[0]
        spent[1] += now[1] - self.mark[1]
        self.phase, self.mark = following, now
        return ", ".join(f"{name} {w:.1f} s ({c:.1f} CPU)" for name, (w, c) in self.spent.items())


def server_cpu(connection) -> float | None:
    """Return the CPU seconds PostgreSQL's process for this connection used (None: unknown).

    Read from /proc, so only for a server on this machine; the sync's own CPU time leaves
    out the server's work, which is most of a PostgreSQL sync.
    """
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def build_apart(path: Path, rows: int) -> None:
    """Build the store in a child process, so the memory building takes is not the syncs'
    peak (built here, 450,000 rows made the peak 529 MB where the syncs need 272)."""
    # Spawned, not forked: a forked child of a process with threads (a test run) may deadlock.
    child = multiprocessing.get_context("spawn").Process(target=build, args=(path, rows))
    child.start()
    child.join()
    if child.exitcode != 0:
        path.unlink(missing_ok=True)
        raise SystemExit(f"building the {rows}-row store failed (exit code {child.exitcode})")


def peak_mb() -> float:
    """Return this process's peak resident memory in MB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--work", type=Path, required=True)
    options = parser.parse_args()
    options.work.mkdir(parents=True, exist_ok=True)
    pristine = options.work / f"pristine-{options.rows}.db"
    if not pristine.exists():
        started = time.perf_counter()
        build_apart(pristine, options.rows)
        print(f"built a {options.rows}-row store in {time.perf_counter() - started:.1f} s")
    store = options.work / "context.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(pristine, store)

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from memadmin.interop.writing.services import context_db_sync

    call_command("migrate", verbosity=0, skip_checks=True)
    if os.environ.get("DATABASE_URL"):
        call_command("flush", interactive=False, verbosity=0)
    engine = connection.vendor
    steps = (
        ("first", "first sync, full (all new)", False),
        ("unchanged", "incremental, nothing changed", True),
        ("changed", "incremental, 1% changed and 0.5% deleted", True),
    )
    met = True
    for key, label, incremental in steps:
        if key == "changed":
            change_upstream(store)
        started, cpu, server = time.perf_counter(), time.process_time(), server_cpu(connection)
        phases = Phases()
        run = context_db_sync(
            path=store, incremental=incremental, record_empty=False, progress=phases
        )
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        after = server_cpu(connection)
        server = "" if server is None or after is None else f", server {after - server:.2f} s CPU"
        target = TARGETS[key]
        verdict = "met" if elapsed < target else "MISSED"
        met = met and elapsed < target
        counts = (
            "nothing to write"
            if run is None
            else f"{run.new} new, {run.changed} changed, {run.unchanged} unchanged, {run.gone} gone"
        )
        print(
            f"{engine}: {label}: {elapsed:.2f} s ({cpu:.2f} s CPU{server}), target < {target:g} s: "
            f"{verdict} — {counts}\n    by phase: {phases.end()}; load {os.getloadavg()[0]:.1f}"
        )
        sys.stdout.flush()
    memory = peak_mb()
    # Judged at the target's size only: a process's fixed part (Django, the page cache) does
    # not grow with the rows, so scaling a smaller run's peak would overstate it.
    if options.rows >= MEMORY_TARGET_ROWS:
        verdict = "met" if memory < MEMORY_TARGET_MB else "MISSED"
    else:
        verdict = f"judged at {MEMORY_TARGET_ROWS} rows (--rows {MEMORY_TARGET_ROWS})"
    print(
        f"{engine}: peak memory {memory:.0f} MB at {options.rows} rows, target < "
        f"{MEMORY_TARGET_MB} MB at {MEMORY_TARGET_ROWS}: {verdict}"
    )
    sys.exit(0 if met else 1)


if __name__ == "__main__":
    main()

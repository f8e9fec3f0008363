"""Time a sync of a large upstream store: a benchmark that prints figures, never a test.

    .venv/bin/python -m tests.interop.bench_sync [--rows 100000]
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/memadmin_bench \
        .venv/bin/python -m tests.interop.bench_sync

Builds (or reuses) an upstream-shaped store under --work (default /tmp/memadmin-bench), makes
a fresh memadmin database there (SQLite) or uses DATABASE_URL's (which it flushes), then
times: the first sync, an idempotent second one, and a third after upstream changed 1% of
the rows and deleted 0.5%.
"""

import argparse
import os
import shutil
import sqlite3
import sys
import time
from pathlib import Path

CATEGORIES = ("PROJECT_RULES", "ARCHITECTURE", "CONSTRAINTS", "CONFIG_VALUES", "NAMING", "ODD_ONE")
PROJECTS = ("git:" + "1" * 40, "git:" + "2" * 40, "dir:3c3c3c3c3c")


def build(path: Path, rows: int) -> None:
    from tests.upstream_store import BASE_TIME_MS, build_store, make_row

    def row(i: int) -> dict:
        return make_row(
            project_path=PROJECTS[i % len(PROJECTS)],
            category=CATEGORIES[i % len(CATEGORIES)],
            content=f"Fact {i}: releases go through scripts/release.sh with the version number.",
            importance=1 + i % 100,
            updated_at=BASE_TIME_MS + i,
            merged_from="[1, 2]" if i % 1000 == 999 else None,
        )

    build_store(path, rows=(row(i) for i in range(rows)))


def change_upstream(path: Path, rows: int) -> None:
    connection = sqlite3.connect(path)
    with connection:
        connection.execute(
            "UPDATE memories SET seen_count = seen_count + 1, updated_at = updated_at + 1 "
            "WHERE id % 100 = 7"
        )
        connection.execute("DELETE FROM memories WHERE id % 200 = 3")
    connection.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--work", type=Path, default=Path("/tmp/memadmin-bench"))
    options = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "")
    if database_url and "bench" not in database_url.rsplit("/", 1)[-1]:
        sys.exit(
            "bench_sync flushes the database it runs on: point DATABASE_URL at a database whose "
            "name contains 'bench' (e.g. .../memadmin_bench), or unset it to use a scratch SQLite."
        )
    options.work.mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings.local")
    os.environ["MEMADMIN_VAR_DIR"] = str(options.work / "var")
    shutil.rmtree(options.work / "var", ignore_errors=True)

    pristine = options.work / f"pristine-{options.rows}.db"
    if not pristine.exists():
        started = time.perf_counter()
        build(pristine, options.rows)
        print(f"built a {options.rows}-row store in {time.perf_counter() - started:.1f} s")
    store = options.work / "context.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(pristine, store)

    import django

    django.setup()
    from django.core.management import call_command

    from memadmin.interop.sync_services import context_db_sync

    call_command("migrate", verbosity=0, skip_checks=True)
    if os.environ.get("DATABASE_URL"):
        call_command("flush", interactive=False, verbosity=0)
    engine = django.db.connection.vendor
    for label in ("first sync", "second sync (no change)", "third sync (1% changed, 0.5% gone)"):
        if label.startswith("third"):
            change_upstream(store, options.rows)
        started, cpu = time.perf_counter(), time.process_time()
        run = context_db_sync(path=store)
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
        print(
            f"{engine}: {label}: {elapsed:.1f} s ({cpu:.1f} s of this process's CPU) — "
            f"{run.new} new, {run.changed} changed, "
            f"{run.unchanged} unchanged, {run.gone} gone, {run.flagged} flagged"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()

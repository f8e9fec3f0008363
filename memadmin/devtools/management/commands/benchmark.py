"""`manage.py benchmark`: build a large store in a temporary database and print figures.

The command starts itself again in a child process whose database is a fresh SQLite file in
a temporary folder (MEMADMIN_VAR_DIR), so the real database is never opened; the folder is
removed afterwards unless --keep is given. Then it times `memadmin serve` restarting on
synced stores of 500 and 100,000 memories (`benchmark/restart.py`, folders of their own).
"""

import os
import time
from dataclasses import replace

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from memadmin.devtools.benchmark.figures import assembly_figures
from memadmin.devtools.benchmark.pages import page_figures, server_rss_mb
from memadmin.devtools.benchmark.report import print_report
from memadmin.devtools.benchmark.restart import restart_figures, restart_lines
from memadmin.devtools.benchmark.store import build_store
from memadmin.devtools.scratch_database import (
    refuse_outside_scratch_database,
    run_in_scratch_database,
)
from memadmin.ledger.counters import choose_counter

INSIDE_ENV = "MEMADMIN_BENCHMARK_DIR"


class Command(BaseCommand):
    help = (
        "Build a store of 100,000 memories and 10,000 composites in a temporary SQLite "
        "database and print the ledger's assembly times (2,000 and 100,000 candidates, both "
        "modes, cold, warm and hot count cache), then every page's server time, CPU time and "
        "queries as a viewer, an editor and an admin, the memory list beside Django's stock "
        "admin changelist, and the targets; then `memadmin serve` restarting on synced "
        "stores of 500 and 100,000 memories, to its first pages. The real database is never "
        "touched."
    )

    def add_arguments(self, parser):
        parser.add_argument("--memories", type=int, default=100_000)
        parser.add_argument("--composites", type=int, default=10_000)
        parser.add_argument(
            "--small", type=int, default=2_000, help="memories of the small project"
        )
        parser.add_argument("--keep", action="store_true", help="keep the temporary database")
        parser.add_argument(
            "--restart-sizes",
            default="500,100000",
            help="store sizes to time restarts at, comma-separated; empty for none "
            "(default: 500,100000; the 100,000 store takes about a minute to build and sync)",
        )
        parser.add_argument(
            "--restart-only",
            action="store_true",
            help="time only the restarts, not the ledger and the pages",
        )
        parser.add_argument(
            "--inside",
            action="store_true",
            help=f"(internal) run in the temporary database; needs {INSIDE_ENV}",
        )

    def handle(self, *args, **options):
        if options["inside"]:
            self._inside(options)
        else:
            self._outside(options)

    def _outside(self, options) -> None:
        try:
            sizes = [int(size) for size in options["restart_sizes"].split(",") if size.strip()]
        except ValueError:
            raise CommandError("--restart-sizes takes numbers separated by commas") from None
        if not options["restart_only"]:
            self._pages(options)
        if sizes:
            figures = restart_figures(
                sizes, settings.BASE_DIR, lambda message: self.stderr.write(f"  {message}…")
            )
            self.stdout.write("")
            for line in restart_lines(figures):
                self.stdout.write(line)

    def _pages(self, options) -> None:
        run_in_scratch_database(
            command="benchmark",
            arguments=[
                f"--memories={options['memories']}",
                f"--composites={options['composites']}",
                f"--small={options['small']}",
            ],
            inside_env=INSIDE_ENV,
            keep=options["keep"],
            stderr=self.stderr,
        )

    def _inside(self, options) -> None:
        refuse_outside_scratch_database(command="benchmark", inside_env=INSIDE_ENV)

        def progress(message: str) -> None:
            self.stderr.write(f"  {message}…")

        progress("creating the temporary database")
        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        store = build_store(
            memories=options["memories"],
            composites=options["composites"],
            small=options["small"],
            progress=progress,
        )
        built = time.perf_counter() - started
        counter = choose_counter()
        write = self.stdout.write
        write(
            f"memadmin benchmark: {store.memories:,} memories and {store.composites:,} "
            f"composites in a temporary SQLite database, built in {built:.0f} s."
        )
        write(f"Token counter: {counter.name}.{' ' + counter.notice if counter.notice else ''}")
        load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
        write(f"Machine: {os.cpu_count()} CPUs, load average {load} (1, 5, 15 min) at the start.")
        write("")
        assembly = assembly_figures(store, counter, progress)
        pages = page_figures(store, counter, progress)
        progress("reading the memory of a fresh server process after the large ledger page")
        pages = replace(pages, server_rss_mb=server_rss_mb(store, counter))
        print_report(write, assembly, pages)

"""`manage.py bench_sizes`: memory sizes kept by triggers beside sizes kept by the writes."""

import os

from django.core.management import call_command
from django.core.management.base import BaseCommand

from memadmin.devtools.benchmark.sizes import measure
from memadmin.devtools.scratch_database import (
    refuse_outside_scratch_database,
    run_in_scratch_database,
)

INSIDE_ENV = "MEMADMIN_BENCH_SIZES_DIR"


class Command(BaseCommand):
    help = (
        "Time a memory's size and digest kept by the database's triggers (as memadmin does) "
        "beside the same computed in Python by each write, on a temporary SQLite database: "
        "a person's saves, a sync's new rows and a sync's changed rows. The real database is "
        "never touched."
    )

    def add_arguments(self, parser):
        parser.add_argument("--saves", type=int, default=1_000)
        parser.add_argument("--sync-rows", type=int, default=20_000)
        parser.add_argument("--keep", action="store_true", help="keep the temporary database")
        parser.add_argument(
            "--inside",
            action="store_true",
            help=f"(internal) run in the temporary database; needs {INSIDE_ENV}",
        )

    def handle(self, *args, **options):
        if not options["inside"]:
            run_in_scratch_database(
                command="bench_sizes",
                arguments=[f"--saves={options['saves']}", f"--sync-rows={options['sync_rows']}"],
                inside_env=INSIDE_ENV,
                keep=options["keep"],
                stderr=self.stderr,
            )
            return
        refuse_outside_scratch_database(command="bench_sizes", inside_env=INSIDE_ENV)
        call_command("migrate", verbosity=0)
        load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
        self.stdout.write(f"Memory sizes and digests on SQLite (load average {load}):")
        timings = measure(
            saves=options["saves"],
            sync_rows=options["sync_rows"],
            progress=lambda message: self.stderr.write(f"  {message}…"),
        )
        for timing in timings:
            self.stdout.write(timing.line())

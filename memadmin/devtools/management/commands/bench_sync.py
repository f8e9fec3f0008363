"""`manage.py bench_sync`: time the sync of a 100,000-row store and print the figures."""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = (
        "Build a large upstream-shaped store and time the first full sync, an incremental "
        "sync that finds nothing changed and one after 1%% changed, with the peak memory; "
        "each against its target. Runs in a child process on a fresh SQLite database "
        "(or on DATABASE_URL's PostgreSQL database, which it flushes: name it *bench*)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--rows", type=int, default=100_000)
        parser.add_argument(
            "--work",
            type=Path,
            default=Path(tempfile.gettempdir()) / "memadmin-bench-sync",
            help="where the store (kept for the next run) and the scratch database go",
        )

    def handle(self, *args, **options):
        url = os.environ.get("DATABASE_URL", "")
        if url and "bench" not in url.rsplit("/", 1)[-1]:
            raise CommandError(
                "bench_sync flushes the database it runs on: point DATABASE_URL at a database "
                "whose name contains 'bench' (e.g. .../memadmin_bench), or unset it."
            )
        work = options["work"]
        var = work / "var"
        var.mkdir(parents=True, exist_ok=True)
        for name in os.listdir(var):
            path = var / name
            if path.is_file():
                path.unlink()
        environment = {
            **os.environ,
            "MEMADMIN_VAR_DIR": str(var),
            "DJANGO_SETTINGS_MODULE": "memadmin.settings.local",
        }
        command = [
            sys.executable,
            "-m",
            "memadmin.devtools.sync_benchmark",
            "--rows",
            str(options["rows"]),
            "--work",
            str(work),
        ]
        finished = subprocess.run(command, env=environment, cwd=settings.BASE_DIR, check=False)
        if finished.returncode:
            raise CommandError("a target was missed (see above)")

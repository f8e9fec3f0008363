"""`manage.py bench_sizes` at a tiny size: both ways write the same sizes, and it says so.

Run as a real process on its own scratch SQLite file (the command starts a child of its own);
the check that both ways stored the same size and digest for every row is the command's own.
"""

import os
import subprocess
import sys

from django.conf import settings


def test_bench_sizes_times_the_three_shapes_of_write_both_ways():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memadmin.settings.local"}
    env.pop("DATABASE_URL", None)
    finished = subprocess.run(
        [sys.executable, "manage.py", "bench_sizes", "--saves=5", "--sync-rows=40"],
        env=env,
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        timeout=300,
    )
    assert finished.returncode == 0, finished.stderr
    lines = finished.stdout.splitlines()
    assert lines[0].startswith("Memory sizes and digests on SQLite")
    assert [line.split("  ")[1].strip() for line in lines[1:]] == [
        "a person's saves (a transaction each)",
        "a sync's new rows (one transaction)",
        "a sync's changed rows (one transaction)",
    ]
    assert all("triggers" in line and "writes" in line for line in lines[1:])

"""Run a measuring command again in a child process on a fresh SQLite file, never the real one.

`manage.py benchmark` and `manage.py curation_timing` build large stores to time. Each calls
`run_in_scratch_database` from its outer run, which makes a temporary folder, points
MEMADMIN_VAR_DIR (so the database) there, and runs the command again with `--inside`. The
inner run calls `refuse_outside_scratch_database` first, so `--inside` never writes elsewhere.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from django.conf import settings
from django.core.management.base import CommandError


def run_in_scratch_database(
    *, command: str, arguments: list[str], inside_env: str, keep: bool, stderr
) -> None:
    """Run `manage.py COMMAND --inside ARGUMENTS` on a fresh database; raise if it fails.

    The folder is removed afterwards unless `keep`, in which case `stderr` says where it is.
    """
    folder = Path(tempfile.mkdtemp(prefix=f"memadmin-{command}-"))
    (folder / "staticfiles").mkdir()  # STATIC_ROOT: WhiteNoise warns when it is missing
    environment = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    environment.update(
        {
            "MEMADMIN_VAR_DIR": str(folder),
            inside_env: str(folder),
            "DJANGO_SETTINGS_MODULE": "memadmin.settings.local",
            "DJANGO_DEBUG": "0",
        }
    )
    child = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), command, "--inside"]
    try:
        finished = subprocess.run([*child, *arguments], env=environment, check=False)
    finally:
        if keep:
            stderr.write(f"The {command} database is kept in {folder}.")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    if finished.returncode != 0:
        raise CommandError(f"The {command} run failed (exit status {finished.returncode}).")


def refuse_outside_scratch_database(*, command: str, inside_env: str) -> None:
    """Raise CommandError unless this process's database is the SQLite file of the scratch run."""
    folder = os.environ.get(inside_env)
    database = settings.DATABASES["default"]
    if (
        not folder
        or database["ENGINE"] != "django.db.backends.sqlite3"
        or not Path(database["NAME"]).resolve().is_relative_to(Path(folder).resolve())
    ):
        raise CommandError(
            f"--inside runs only in the temporary database `manage.py {command}` makes."
        )

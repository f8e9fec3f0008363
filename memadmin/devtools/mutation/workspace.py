"""Lay out the scratch copy that mutmut works in, and run mutmut there.

mutmut 3 copies the source into ``mutants/`` beside its configuration and runs pytest there,
so the repository itself is never touched: the command copies what the tests need (the
package, the tests, packs, templates, static files) into a scratch folder, adds a
``[tool.mutmut]`` table for this run to a copy of ``pyproject.toml``, and runs mutmut in it.
"""

import fnmatch
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

from .targets import Selection
from .undecorate import undecorate_source

COPIED = ("memadmin", "tests", "packs", "templates", "static", "manage.py", "pyproject.toml")
SETTINGS = '''"""Settings for mutation runs: a test database on file, kept from one pytest run to the next."""

from .test import *  # noqa: F403
from .test import DATABASES, VAR_DIR

DATABASES = {
    "default": {**DATABASES["default"], "TEST": {"NAME": str(VAR_DIR / "mutation-test.sqlite3")}}
}
'''
PROFILE = '''"""Hypothesis for mutation runs: no example database, no deadline, as in the suite."""

from hypothesis import HealthCheck, settings

settings.register_profile(
    "mutation",
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
'''
# Each mutant runs pytest afresh in a forked process: keep the test database between runs
# (the Django tests would otherwise migrate a new one for every mutant), leave the browser
# tests out, and give Hypothesis one seed and no memory of earlier failures, so that a score
# does not depend on luck or on the order mutants ran in.
PYTEST_ARGS = (
    "--ds=memadmin.settings.mutation",
    "--reuse-db",
    "-m",
    "not browser",
    "-p",
    "mutation_profile",
    "--hypothesis-profile=mutation",
    "--hypothesis-seed=0",
    "-p",
    "no:cacheprovider",
    # A size test (100,000 rows, half a minute) that every mutant of the hash would rerun;
    # the hash's own tests pin its digests.
    "--deselect",
    "tests/core/test_contextdb.py::test_hundred_thousand_memories_are_read",
)


def prepare(root: Path, work: Path, selection: Selection) -> None:
    """Fill `work` with a fresh copy of the project configured to mutate `selection`."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    for name in COPIED:
        source = root / name
        if source.is_dir():
            shutil.copytree(source, work / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, work / name)
    for path in sorted((work / "memadmin").rglob("*.py")):
        relative = path.relative_to(work).as_posix()
        if any(fnmatch.fnmatch(relative, p) for p in selection.patterns):
            path.write_text(undecorate_source(path.read_text("utf-8")), "utf-8")
    (work / "memadmin" / "settings" / "mutation.py").write_text(SETTINGS, "utf-8")
    (work / "mutation_profile.py").write_text(PROFILE, "utf-8")
    with (work / "pyproject.toml").open("a", encoding="utf-8") as config:
        config.write(_mutmut_table(selection))


def refresh_tests(root: Path, work: Path) -> None:
    """Copy the current tests over those of the scratch copy and of its ``mutants/``."""
    for target in (work / "tests", work / "mutants" / "tests"):
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(root / "tests", target, ignore=shutil.ignore_patterns("__pycache__"))


def _mutmut_table(selection: Selection) -> str:
    """Return the ``[tool.mutmut]`` table for this run, in TOML."""

    def array(items) -> str:
        return "[" + ", ".join(f'"{item}"' for item in items) + "]"

    table = (
        "\n[tool.mutmut]\n"
        'source_paths = ["memadmin"]\n'
        f"only_mutate = {array(selection.patterns)}\n"
        f"pytest_add_cli_args_test_selection = {array(selection.tests)}\n"
        f"pytest_add_cli_args = {array(PYTEST_ARGS)}\n"
        'also_copy = ["packs", "templates", "static", "manage.py", "mutation_profile.py"]\n'
        "use_git_change_detection = false\n"
    )
    tomllib.loads(table)
    return table


def environment(root: Path) -> dict[str, str]:
    """Return the environment for mutmut: SQLite in the scratch copy, the real tokenizer."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "MEMADMIN_VAR_DIR")}
    env.setdefault("MEMADMIN_TOKENIZER_DIR", str((root / ".cache" / "ai-tokenizer").resolve()))
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_mutmut(work: Path, root: Path, jobs: int, names: list[str], log: Path) -> int:
    """Run ``mutmut run`` in `work` on the named mutants (all when `names` is empty)."""
    mutmut = Path(sys.executable).with_name("mutmut")
    command = [str(mutmut), "run", "--max-children", str(jobs), *names]
    with log.open("w", encoding="utf-8") as output:
        return subprocess.run(
            command, cwd=work, env=environment(root), stdout=output, stderr=subprocess.STDOUT
        ).returncode


def generate(work: Path, root: Path, jobs: int) -> int:
    """Write every mutant of the selection into ``work/mutants`` without running a test."""
    script = (
        "import mutmut.__main__ as m\n"
        "from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir\n"
        "import os; os.makedirs('mutants', exist_ok=True)\n"
        f"copy_src_dir(); copy_also_copy_files(); m.create_mutants({jobs})\n"
    )
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=work,
        env=environment(root),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    ).returncode

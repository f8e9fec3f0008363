"""What to mutate: module names, paths and the two named sets, and the tests that guard each."""

from dataclasses import dataclass
from pathlib import Path

CORE = (
    "memadmin/core/ledger/*.py",
    "memadmin/core/packs.py",
    "memadmin/core/facts.py",
    "memadmin/core/fragments.py",
    "memadmin/core/hashing.py",
    "memadmin/core/worddiff.py",
)
SERVICES = (
    "memadmin/memories/services.py",
    "memadmin/memories/archive_services.py",
    # The taxonomy's writes to memories (a pack upgrade's moves, the facts checker's writes).
    "memadmin/memories/facts_services.py",
    "memadmin/memories/pack_upgrade_services.py",
    "memadmin/curation/bulk_services.py",
    "memadmin/curation/merge_services.py",
    "memadmin/projects/services.py",
    "memadmin/composites/services.py",
    "memadmin/composites/member_services.py",
    "memadmin/composites/reference_services.py",
    "memadmin/composites/repoint_services.py",
    "memadmin/taxonomy/services.py",
    "memadmin/interop/planning/plan.py",
)
NAMED_SETS = {"core": CORE, "services": SERVICES}
TARGETS = {"core": 95.0, "services": 85.0}
"""The share of mutants each named set must kill, in percent (issue 19)."""


@dataclass(frozen=True)
class Selection:
    """The files to mutate (glob patterns relative to the repository) and the tests to run."""

    patterns: tuple[str, ...]
    tests: tuple[str, ...]
    target: float | None


def select(names: list[str], root: Path, tests: list[str] | None = None) -> Selection:
    """Return the selection that `names` (sets, dotted modules, files or folders) stand for.

    Raise ValueError naming every name that matches no Python file under `root`.
    """
    patterns: list[str] = []
    unknown = []
    for name in names:
        found = NAMED_SETS.get(name) or _pattern(name, root)
        if not found:
            unknown.append(name)
        patterns.extend(p for p in found if p not in patterns)
    if unknown:
        raise ValueError(
            "not a module, file, folder or set (core, services): " + ", ".join(unknown)
        )
    targets = [TARGETS[n] for n in names if n in TARGETS]
    return Selection(
        patterns=tuple(patterns),
        tests=tuple(tests or _tests_for(patterns, root)),
        target=min(targets) if targets else None,
    )


def _pattern(name: str, root: Path) -> tuple[str, ...]:
    """Return the glob for one dotted module, file or folder, or () if there is none."""
    path = name.removesuffix(".py").replace(".", "/") if "/" not in name else name
    for candidate in (f"{path}.py", path):
        full = root / candidate
        if full.is_file() and full.suffix == ".py":
            return (candidate,)
        if full.is_dir() and any(full.rglob("*.py")):
            return (f"{candidate.rstrip('/')}/*",)
    return ()


def _tests_for(patterns: list[str], root: Path) -> list[str]:
    """Return the test folders that mirror the apps of the patterns (tests/core for the core)."""
    folders = []
    for pattern in patterns:
        parts = pattern.split("/")
        folder = f"tests/{parts[1]}" if len(parts) > 2 else "tests"
        if folder not in folders and (root / folder).is_dir():
            folders.append(folder)
    return folders

"""Read mutmut's results: per-module scores, the survivors and their diffs, known equivalents."""

import json
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

EQUIVALENTS_FILE = Path(__file__).with_name("equivalents.toml")
KILLED = {"killed", "timeout", "caught by type check", "segfault"}
NOT_KILLED = {"survived", "suspicious", "no tests"}


@dataclass(frozen=True)
class Equivalent:
    """A mutant shown to change nothing observable: its module, the lines it changes, why."""

    module: str
    removed: str
    added: str
    reason: str


@dataclass
class ModuleScore:
    """The verdicts of one module's mutants."""

    module: str
    counts: Counter = field(default_factory=Counter)

    @property
    def killed(self) -> int:
        return sum(self.counts[s] for s in KILLED)

    @property
    def not_killed(self) -> int:
        return sum(self.counts[s] for s in NOT_KILLED)

    @property
    def score(self) -> float | None:
        """Return the killed share of the mutants tested, equivalents left out, in percent."""
        tested = self.killed + self.not_killed
        return 100 * self.killed / tested if tested else None


@dataclass(frozen=True)
class Survivor:
    """A mutant no test killed, with mutmut's diff of it."""

    name: str
    module: str
    status: str
    diff: str


def load_equivalents(path: Path = EQUIVALENTS_FILE) -> list[Equivalent]:
    """Return the listed equivalent mutants (``[[equivalent]]`` tables of module, removed,
    added, reason)."""
    data = tomllib.loads(path.read_text("utf-8"))
    return [Equivalent(**entry) for entry in data.get("equivalent", [])]


def changed_lines(diff: str) -> tuple[str, str]:
    """Return the removed and the added lines of a unified diff, each stripped, one a line."""
    removed, added = [], []
    for line in diff.splitlines():
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("-"):
            removed.append(line[1:].strip())
        elif line.startswith("+"):
            added.append(line[1:].strip())
    return "\n".join(removed), "\n".join(added)


def verdicts(work: Path) -> dict[str, tuple[str, str]]:
    """Return each mutant's module and status from the ``.meta`` files under ``work/mutants``."""
    from mutmut.stats import status_by_exit_code

    found = {}
    for meta in sorted((work / "mutants").rglob("*.py.meta")):
        module = meta.relative_to(work / "mutants").as_posix().removesuffix(".py.meta")
        module = module.replace("/", ".")
        data = json.loads(meta.read_text("utf-8"))
        for name, code in data["exit_code_by_key"].items():
            found[name] = (module, status_by_exit_code[code])
    return found


def diff_of(work: Path, name: str, module: str) -> str:
    """Return mutmut's diff of one mutant (run inside the scratch copy)."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.utils.file_utils import change_cwd

    with change_cwd(work):
        return get_diff_for_mutant(name, path=Path(module.replace(".", "/") + ".py"))


def score(
    work: Path, equivalents: list[Equivalent]
) -> tuple[list[ModuleScore], list[Survivor], list[tuple[str, Equivalent]]]:
    """Return the scores per module, the survivors and the mutants excluded as equivalent."""
    scores: dict[str, ModuleScore] = {}
    survivors, excluded = [], []
    for name, (module, status) in verdicts(work).items():
        entry = scores.setdefault(module, ModuleScore(module))
        if status in NOT_KILLED:
            diff = diff_of(work, name, module)
            removed, added = changed_lines(diff)
            match = next(
                (
                    e
                    for e in equivalents
                    if e.module == module
                    and changed_lines_equal(e.removed, removed)
                    and changed_lines_equal(e.added, added)
                ),
                None,
            )
            if match:
                excluded.append((name, match))
                entry.counts["equivalent"] += 1
                continue
            survivors.append(Survivor(name, module, status, diff))
        entry.counts[status] += 1
    return sorted(scores.values(), key=lambda s: s.module), survivors, excluded


def changed_lines_equal(listed: str, found: str) -> bool:
    """Return True if the listed lines are the found ones, whitespace at line ends aside."""
    return [x.strip() for x in listed.strip().splitlines()] == found.splitlines()


def table(scores: list[ModuleScore]) -> str:
    """Return the per-module scores as a fixed-width table with a total line."""
    total = ModuleScore("total")
    for s in scores:
        total.counts.update(s.counts)
    width = max(len(s.module) for s in [*scores, total])
    lines = [
        f"{'module':<{width}}  {'mutants':>7}  {'tested':>6}  {'killed':>6}  "
        f"{'survived':>8}  {'no tests':>8}  {'equiv.':>6}  {'score':>6}"
    ]
    for s in [*scores, total]:
        tested = s.killed + s.not_killed
        mutants = sum(s.counts.values())
        shown = "-" if s.score is None else f"{s.score:5.1f}%"
        lines.append(
            f"{s.module:<{width}}  {mutants:>7}  {tested:>6}  {s.killed:>6}  "
            f"{s.counts['survived'] + s.counts['suspicious']:>8}  {s.counts['no tests']:>8}  "
            f"{s.counts['equivalent']:>6}  {shown:>6}"
        )
    return "\n".join(lines)


def total_score(scores: list[ModuleScore]) -> float | None:
    """Return the killed share of every module's tested mutants together."""
    total = ModuleScore("total")
    for s in scores:
        total.counts.update(s.counts)
    return total.score


def write_survivors(path: Path, survivors: list[Survivor], excluded) -> None:
    """Write each survivor's name, status and diff, then the mutants excluded as equivalent."""
    path.parent.mkdir(parents=True, exist_ok=True)
    parts = [f"# {len(survivors)} surviving mutants\n"]
    for s in sorted(survivors, key=lambda s: s.name):
        parts.append(f"## {s.name}: {s.status}\n{s.diff}\n")
    parts.append(f"# {len(excluded)} excluded as equivalent\n")
    for name, e in sorted(excluded, key=lambda x: x[0]):
        parts.append(f"- {name}: {e.reason}\n")
    path.write_text("\n".join(parts), "utf-8")

"""Run mutation testing on memadmin's modules and print each module's score.

.venv/bin/python -m memadmin.devtools.mutation core --sample 40
.venv/bin/python -m memadmin.devtools.mutation memadmin.core.hashing
.venv/bin/python -m memadmin.devtools.mutation services --jobs 2
"""

import argparse
import random
import resource
import sys
import time
from pathlib import Path

from . import report, targets, workspace

ROOT = Path(__file__).resolve().parents[3]


def parse_args(argv: list[str]) -> argparse.Namespace:
    """Return the command line's options."""
    parser = argparse.ArgumentParser(
        prog="python -m memadmin.devtools.mutation",
        description="Mutate the named modules with mutmut, run their tests against each "
        "mutant, print the share killed per module and write the survivors to a file.",
    )
    parser.add_argument(
        "modules",
        nargs="+",
        help="'core', 'services', dotted modules (memadmin.core.hashing), files or folders",
    )
    parser.add_argument(
        "--sample",
        type=int,
        metavar="N",
        help="test at most N mutants of each module, drawn at random (see --seed)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    parser.add_argument(
        "--tests",
        nargs="+",
        metavar="PATH",
        help="test paths to run (default: the tests/ folder of each module's app)",
    )
    parser.add_argument(
        "--jobs", type=int, default=2, help="mutants tested at once (default 2, one per CPU)"
    )
    parser.add_argument(
        "--survivors",
        type=Path,
        default=ROOT / "var" / "mutation" / "survivors.txt",
        help="where to write the survivors and their diffs (default var/mutation/survivors.txt)",
    )
    parser.add_argument(
        "--again",
        action="store_true",
        help="re-test only the survivors of the last run in --work against the current tests "
        "(after adding tests; the source must be as it was)",
    )
    parser.add_argument(
        "--work",
        type=Path,
        default=ROOT / "var" / "mutation" / "work",
        help="scratch folder, emptied first (default var/mutation/work)",
    )
    return parser.parse_args(argv)


def sample_names(work: Path, size: int, seed: int) -> list[str]:
    """Return at most `size` mutant names of each module, drawn with `seed`."""
    by_module: dict[str, list[str]] = {}
    for name, (module, _status) in report.verdicts(work).items():
        by_module.setdefault(module, []).append(name)
    rng = random.Random(seed)
    chosen = []
    for module in sorted(by_module):
        names = sorted(by_module[module])
        chosen.extend(sorted(rng.sample(names, min(size, len(names)))))
    return chosen


def main(argv: list[str] | None = None) -> int:
    """Run the measurement; return 0 when every target met, 1 when one missed, 2 on failure."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        selection = targets.select(args.modules, ROOT, args.tests)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    started = time.monotonic()
    work = args.work.resolve()
    print(f"mutating {', '.join(selection.patterns)}")
    print(f"against  {' '.join(selection.tests)}  (scratch copy in {work})")
    names: list[str] = []
    if args.again:
        if not (work / "mutants").is_dir():
            print(f"error: no earlier run in {work} to test again", file=sys.stderr)
            return 2
        workspace.refresh_tests(ROOT, work)
        _, survivors, _ = report.score(work, report.load_equivalents())
        names = [survivor.name for survivor in survivors]  # listed equivalents stay as they are
        print(f"again: {len(names)} survivors of the last run, against the current tests")
    else:
        workspace.prepare(ROOT, work, selection)
    if args.sample and not args.again:
        if workspace.generate(work, ROOT, args.jobs) != 0:
            print("error: mutmut could not generate the mutants", file=sys.stderr)
            return 2
        names = sample_names(work, args.sample, args.seed)
        print(f"sample: {len(names)} mutants, at most {args.sample} a module (seed {args.seed})")
    log = work / "mutmut.log"
    nothing_to_do = args.again and not names
    code = 0 if nothing_to_do else workspace.run_mutmut(work, ROOT, args.jobs, names, log)
    if code != 0:
        print(f"error: mutmut stopped with exit code {code}; its output is in {log}")
        return 2
    scores, survivors, excluded = report.score(work, report.load_equivalents())
    report.write_survivors(args.survivors, survivors, excluded)
    print(report.table(scores))
    total = report.total_score(scores)
    minutes = (time.monotonic() - started) / 60
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (used.ru_utime + used.ru_stime) / 60
    print(
        f"{len(survivors)} survivors written to {args.survivors}; "
        f"{minutes:.1f} minutes ({cpu:.1f} minutes of CPU time)"
    )
    if selection.target is None or total is None:
        return 0
    met = total >= selection.target
    print(f"target {selection.target:.0f}%: {'met' if met else 'missed'} ({total:.1f}%)")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())

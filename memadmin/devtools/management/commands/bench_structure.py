"""`manage.py bench_structure`: the structure assistant against issue 29's targets."""

from django.core.management.base import BaseCommand

from memadmin.core.structure import HEADER_TOKEN_LIMIT
from memadmin.devtools.benchmark.structure import (
    SECONDS_AT_100_000,
    SECONDS_AT_500,
    measure,
    proposal_shaped,
)
from memadmin.ledger.counters import choose_counter


class Command(BaseCommand):
    help = (
        "Generate a project of the proposal's shape (about 490 live memories in six custom "
        "categories, SOPs and config dossiers as single memories), suggest its structure and "
        "print: coverage before (pack mode) and after applying every suggestion (headers "
        "mode) at 1,500 and 4,000 tokens, the largest composite, the longest header, lines "
        "lost, and the time to suggest; then the time at 100,000 memories. Each against its "
        "target. Nothing touches a database."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--large", type=int, default=100_000, help="memories of the timed large run (0: none)"
        )
        parser.add_argument("--header-limit", type=int, default=HEADER_TOKEN_LIMIT)

    def handle(self, *args, **options):
        choice = choose_counter()
        if choice.notice:
            self.stderr.write(choice.notice)
        self.stdout.write(f"Structure assistant, {choice.name} counter:")
        small = measure(
            proposal_shaped(), counter=choice.counter, header_limit=options["header_limit"]
        )
        for line in small.lines(seconds_target=SECONDS_AT_500):
            self.stdout.write(line)
        if options["large"]:
            large = measure(
                proposal_shaped(options["large"]),
                counter=choice.counter,
                header_limit=options["header_limit"],
                coverage=False,
            )
            for line in large.lines(seconds_target=SECONDS_AT_100_000):
                self.stdout.write(line)

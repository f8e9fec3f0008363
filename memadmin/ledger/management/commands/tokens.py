"""`manage.py tokens [--counter NAME] FILE...`: print each file's token count."""

from django.core.management.base import BaseCommand, CommandError

from memadmin.core.tokens import COUNTER_NAMES, CounterUnavailable, UnknownCounter
from memadmin.ledger.counters import choose_counter


class Command(BaseCommand):
    help = (
        "Count the tokens of each file (read as UTF-8, exactly as written) and print one "
        "`count<TAB>file` line per file."
    )

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument(
            "--counter",
            help=f"one of {', '.join(COUNTER_NAMES)} (default: claude, else the heuristic)",
        )

    def handle(self, *args, **options):
        try:
            choice = choose_counter(options["counter"], fall_back=options["counter"] is None)
        except (UnknownCounter, CounterUnavailable) as error:
            raise CommandError(str(error)) from error
        if choice.notice:
            self.stderr.write(choice.notice)
        unreadable = 0
        for path in options["files"]:
            try:
                with open(path, encoding="utf-8", newline="") as file:
                    text = file.read()
            except (OSError, UnicodeDecodeError) as error:
                self.stderr.write(f"{path}: cannot read it as UTF-8 text: {error}")
                unreadable += 1
                continue
            self.stdout.write(f"{choice.counter.count(text)}\t{path}")
        if unreadable:
            raise CommandError(
                f"{unreadable} of {len(options['files'])} file(s) could not be read."
            )

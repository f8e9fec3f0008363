"""`manage.py ledger --project P [--budget N] [--mode M] [--format F]`: print an injection."""

import json

from django.core.management.base import BaseCommand, CommandError

from memadmin.core.clock import now_ms
from memadmin.core.ledger import LedgerError
from memadmin.core.ledger.model import MODES
from memadmin.core.ledger.reader import never_injected_summary
from memadmin.core.tokens import COUNTER_NAMES, CounterUnavailable, UnknownCounter
from memadmin.ledger.counters import choose_counter
from memadmin.ledger.plugin_context import ledger_budget
from memadmin.ledger.selectors import ledger_preview
from memadmin.projects.models import Project


class Command(BaseCommand):
    help = (
        "Print the memory block a project's agent would be given at a token budget (text), "
        "or every memory's row and the totals (json). Memories synced from a magic-context "
        "store carry their upstream ids, so plugin mode prints the block the stock plugin "
        "injects (workspace members' shared memories included), byte for byte, followed by "
        "one newline; pack mode what a plugin reading the project's pack would inject. "
        "A summary goes to standard error."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--project", required=True, help="the project identity (git:... or dir:...)"
        )
        parser.add_argument(
            "--budget",
            type=int,
            help="the token budget, 500 to 20000 (default: the user's magic-context config for "
            "a synced project, else the plugin version's default; the project's otherwise)",
        )
        parser.add_argument("--mode", choices=MODES, default="plugin")
        parser.add_argument("--format", choices=("text", "json"), default="text")
        parser.add_argument(
            "--counter",
            help=f"one of {', '.join(COUNTER_NAMES)} (default: claude, else the heuristic)",
        )
        parser.add_argument(
            "--now", type=int, help="the time to assemble at, in epoch milliseconds (default: now)"
        )
        parser.add_argument("--tie-break", choices=("recent", "id"), default="recent")

    def handle(self, *args, **options):
        try:
            project = Project.objects.get(identity=options["project"])
        except Project.DoesNotExist:
            raise CommandError(f"No project {options['project']!r}.") from None
        try:
            counter = choose_counter(options["counter"], fall_back=options["counter"] is None)
        except (UnknownCounter, CounterUnavailable) as error:
            raise CommandError(str(error)) from error
        if counter.notice:
            self.stderr.write(counter.notice)
        budget = options["budget"]
        if budget is None:
            default = ledger_budget(project)
            budget = default.tokens
            for problem in default.problems:
                self.stderr.write(f"warning: {problem}")
            self.stderr.write(f"Budget {budget} tokens: {default.source}.")
        at = options["now"] if options["now"] is not None else now_ms()
        try:
            preview = ledger_preview(
                project,
                budget=budget,
                counter=counter,
                now_ms=at,
                modes=(options["mode"],),
                tie_break=options["tie_break"],
            )
        except LedgerError as error:
            raise CommandError(str(error)) from error
        if preview.is_empty:
            raise CommandError(f"Project {project.identity} has no memories: nothing to assemble.")
        result = preview.results[options["mode"]]
        if options["format"] == "json":
            document = {"project": project.identity, "now_ms": at, **result.to_json()}
            self.stdout.write(json.dumps(document, ensure_ascii=False, indent=2))
        elif result.rendered:
            self.stdout.write(result.rendered)
        coverage = result.coverage
        self.stderr.write(
            f"{result.mode} mode, {counter.name} counter: {result.used_tokens} of {budget} tokens, "
            f"{coverage.injected} injected, {coverage.reachable} of {coverage.live_count} live "
            f"memories reachable ({coverage.share:.0%})"
            + (
                f"; {coverage.never_injectable} the plugin can never inject."
                if coverage.never_injectable
                else "."
            )
        )
        if result.mode != "headers":
            self.stderr.write(never_injected_summary(result.dropped, pack=result.mode == "pack"))
        for warning in preview.workspace.warnings if preview.workspace else ():
            self.stderr.write(f"warning: {warning}")

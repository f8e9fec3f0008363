"""`manage.py suggest_structure --project P [--budget N] [--json] [--apply]`: what to fragment
and group in a project, and, with --apply, all of it in one audited change."""

import json

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from memadmin.core.clock import now_ms
from memadmin.core.ledger import BUDGET_MAX, BUDGET_MIN
from memadmin.core.structure import HEADER_TOKEN_LIMIT
from memadmin.core.tokens import COUNTER_NAMES, CounterUnavailable, UnknownCounter
from memadmin.ledger.counters import CounterChoice, choose_counter
from memadmin.ledger.selectors import ledger_preview
from memadmin.projects.models import Project
from memadmin.structure.apply_services import structure_apply
from memadmin.structure.suggestions import structure_plan

DEFAULT_BUDGETS = (1500, 4000)


class Command(BaseCommand):
    help = (
        "Print what the structure assistant suggests for a project: monoliths to fragment into "
        "details under a header, families of related memories to group under a header, each "
        "header as drafted, and the project's coverage before (pack mode) and after all of them "
        "(headers mode) at each budget. Coverage is the share of all live memories reached. "
        "Nothing is written."
    )

    def add_arguments(self, parser):
        parser.add_argument("--project", required=True, help="the project identity (git:...)")
        parser.add_argument(
            "--budget",
            type=int,
            action="append",
            help=f"a token budget, {BUDGET_MIN} to {BUDGET_MAX}; repeat for several "
            f"(default: {' and '.join(map(str, DEFAULT_BUDGETS))})",
        )
        parser.add_argument(
            "--header-limit",
            type=int,
            default=HEADER_TOKEN_LIMIT,
            help=f"the most tokens a drafted header may take (default {HEADER_TOKEN_LIMIT})",
        )
        parser.add_argument("--json", action="store_true", help="print JSON")
        parser.add_argument(
            "--apply",
            action="store_true",
            help="apply every suggestion in one audited change (as 'system'; Undo on the "
            "overview's history takes it back), then print the coverage after",
        )
        parser.add_argument("--reason", default="", help="the reason kept with --apply")
        parser.add_argument(
            "--counter", help=f"one of {', '.join(COUNTER_NAMES)} (default: claude, else heuristic)"
        )

    def handle(self, *args, **options):
        try:
            project = Project.objects.get(identity=options["project"])
        except Project.DoesNotExist:
            raise CommandError(f"No project {options['project']!r}.") from None
        budgets = options["budget"] or list(DEFAULT_BUDGETS)
        for budget in budgets:
            if not BUDGET_MIN <= budget <= BUDGET_MAX:
                raise CommandError(
                    f"The budget must be between {BUDGET_MIN} and {BUDGET_MAX} tokens, not {budget}."
                )
        if options["header_limit"] < 10:
            raise CommandError("The header limit must be 10 tokens or more.")
        try:
            choice = choose_counter(options["counter"], fall_back=options["counter"] is None)
        except (UnknownCounter, CounterUnavailable) as error:
            raise CommandError(str(error)) from error
        if choice.notice:
            self.stderr.write(choice.notice)
        counter = choice.counter
        plan = structure_plan(
            project,
            counter=counter,
            budgets=budgets,
            now_ms=now_ms(),
            header_limit=options["header_limit"],
        )
        if options["apply"]:
            self._apply(project, plan, counter, options)
            return
        if options["json"]:
            self.stdout.write(json.dumps(_document(project, plan), ensure_ascii=False, indent=2))
            return
        for suggestion in plan.suggestions:
            what = (
                f"fragment #{suggestion.source_id} into {len(suggestion.details)} details"
                if suggestion.source_id is not None
                else f"group {len(suggestion.details)} memories: "
                + ", ".join(f"#{i}" for i in suggestion.member_ids)
            )
            self.stdout.write(
                f"{suggestion.kind} ({suggestion.composite_type}, {suggestion.category}): {what}\n"
                f"  header ({suggestion.header_tokens} tokens, for about {suggestion.tokens_now} "
                f"now): {suggestion.header}"
            )
        self.stdout.write(
            f"{len(plan.suggestions)} suggestions; headers within {plan.header_limit} tokens."
        )
        for effect in plan.effects:
            self.stdout.write(
                f"at {effect.budget} tokens: {effect.before_reached} of {effect.live} live memories "
                f"reached now ({effect.before_share:.0%}, pack mode), {effect.after_reached} "
                f"after ({effect.after_share:.0%}, headers mode)"
            )

    def _apply(self, project, plan, counter, options) -> None:
        if not plan.suggestions:
            self.stdout.write("Nothing to apply: no suggestion for this project.")
            return
        budgets = [effect.budget for effect in plan.effects]
        # Two rounds: fragments and families, then the themes over the new category headers.
        for _ in range(2):
            if not plan.suggestions:
                break
            try:
                applied = structure_apply(
                    project=project,
                    keys=[s.key for s in plan.suggestions],
                    actor="system",
                    counter=counter,
                    reason=options["reason"] or "Applied with manage.py suggest_structure --apply",
                    header_limit=options["header_limit"],
                    shown=plan.suggestions,
                    pk_of=plan.pk_of,
                )
            except ValidationError as error:
                raise CommandError(" ".join(error.messages)) from error
            self.stdout.write(f"{applied.summary()} Change {applied.change_id}.")
            plan = structure_plan(
                project,
                counter=counter,
                budgets=(),
                now_ms=now_ms(),
                header_limit=options["header_limit"],
            )
        after = structure_plan(project, counter=counter, budgets=budgets, now_ms=now_ms())
        for effect in after.effects:
            self.stdout.write(
                f"at {effect.budget} tokens: {effect.before_reached} of {effect.live} live "
                f"memories reached in pack mode now ({effect.before_share:.0%})"
            )
            headers = _headers_mode(project, counter, effect.budget)
            self.stdout.write(f"  headers mode: {headers}")


def _headers_mode(project, counter, budget: int) -> str:
    preview = ledger_preview(
        project, budget=budget, counter=CounterChoice(counter), now_ms=now_ms(), modes=("headers",)
    )
    coverage = preview.results["headers"].coverage
    return (
        f"{coverage.reachable} of {coverage.live_count} live memories reachable "
        f"({coverage.share:.0%})"
    )


def _document(project, plan) -> dict:
    return {
        "project": project.identity,
        "header_limit": plan.header_limit,
        "suggestions": [
            {
                "key": s.key,
                "kind": s.kind,
                "composite_type": s.composite_type,
                "category": s.category,
                "header": s.header,
                "header_tokens": s.header_tokens,
                "tokens_now": s.tokens_now,
                "source_id": s.source_id,
                "details": [{"memory_id": d.memory_id, "text": d.text} for d in s.details],
            }
            for s in plan.suggestions
        ],
        "effects": [effect.to_json() for effect in plan.effects],
    }

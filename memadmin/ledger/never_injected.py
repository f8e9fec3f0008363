"""How many of a project's live memories the stock plugin never injects, and why (one selector).

For the overview page and anything else that wants one line per project without assembling
a preview: it reads the project's rows and runs the plugin's row reader over them
(`memadmin.core.ledger.reader`), nothing more.
"""

from dataclasses import dataclass

from memadmin.core.ledger import read_rows
from memadmin.core.ledger.reader import never_injected_summary as summary_sentence
from memadmin.projects.models import Project

from .inputs import ledger_inputs


@dataclass(frozen=True, slots=True)
class NeverInjected:
    """How many live memories the stock plugin never injects, the sentence, and each reason."""

    count: int
    sentence: str
    by_reason: tuple[tuple[str, int], ...]


def never_injected_summary(project: Project, *, now_ms: int) -> NeverInjected:
    """Return how many of the project's live memories the stock plugin never injects, and why.

    A live memory is active or permanent and not expired at ``now_ms``; the stock plugin
    drops it before selection when its category is not one of the twelve it knows, or a
    value is not one upstream writes. Three queries whatever the project's size.
    """
    _, dropped = read_rows(ledger_inputs(project).memories, now_ms=now_ms)
    counts: dict[str, int] = {}
    for row in dropped:
        counts[row.reason] = counts.get(row.reason, 0) + 1
    return NeverInjected(len(dropped), summary_sentence(dropped), tuple(sorted(counts.items())))

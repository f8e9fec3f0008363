"""Write the facts accepted from historian output as memories, with upstream's duplicate rule.

The taxonomy checks the output (`facts_check`); writing it is the memories'.
"""

from dataclasses import dataclass, field

from django.core.exceptions import ValidationError

from memadmin.core.facts import AcceptedFact, FactsReport

from .models import Memory
from .services import memory_write_or_bump


@dataclass
class FactsWritten:
    """What writing the accepted facts did: memories created, memories bumped, facts refused."""

    created: list[tuple[AcceptedFact, object]] = field(default_factory=list)
    bumped: list[tuple[AcceptedFact, object]] = field(default_factory=list)
    refused: list[tuple[AcceptedFact, str]] = field(default_factory=list)


def facts_write(*, project, report: FactsReport, actor, reason: str = "") -> FactsWritten:
    """Write every accepted fact of the report as a historian memory of the project.

    An exact duplicate of a stored memory (or of an earlier fact of the same report) only
    bumps that memory's seen count. Each fact is written in its own transaction; a fact the
    store refuses is listed with the reason, and the others are still written.
    """
    written = FactsWritten()
    for fact in report.accepted:
        try:
            memory, created = memory_write_or_bump(
                project=project,
                category=fact.category,
                content=fact.content,
                actor=actor,
                source_type=Memory.SourceType.HISTORIAN,
                reason=reason or f"historian output, line {fact.line}",
            )
        except ValidationError as error:
            written.refused.append((fact, " ".join(error.messages)))
            continue
        (written.created if created else written.bumped).append((fact, memory))
    return written

"""The demo's history tells a story: people and agents at work over the weeks it spans.

The builder writes through the services, which stamp each version and audit event with the
moment the build runs. That would make every "who changed this last week" empty, and a
memory "created 2026-10-09" with a history dated today. So after the build:

- some memories are edited by two people and an agent over the last three weeks, each with
  a reason (importance raised after incidents, texts clarified, categories corrected);
- every version is dated at the memory's `updated_at` of that version, every audit event at
  the date of the versions of its change, and the rest (composite events) in the order they
  were written, right after what came before.
"""

import random
from bisect import bisect_right
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model

from memadmin.accounts.services import person_create
from memadmin.audit.context import acting
from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.clock import ms_to_datetime, now_ms
from memadmin.memories.models import Memory
from memadmin.memories.services import DuplicateMemory, memory_update

DAY_MS = 86_400_000
# The demo's authors besides the agents: (username, role).
AUTHORS = (("ana", "editor"), ("chen", "curator"))
IMPORTANCE_REASONS = (
    "Paged twice for this in the last month; it must be injected.",
    "Raised after the incident review.",
    "The on-call team asks about this every week.",
)
CLARIFICATIONS = (
    (" (confirmed with the on-call team)", "Clarified after checking with on-call."),
    (" (checked against the runbook)", "Verified against the current runbook."),
    (" (still true after the migration)", "Re-checked after the database migration."),
)


def authors() -> list:
    """Return the demo's two people, made once; nobody can log in as them (no password)."""
    people = get_user_model().objects
    made = []
    for username, role in AUTHORS:
        person = people.filter(username=username).first()
        if person is None:
            person = person_create(username=username, password=None, role=role)
        made.append(person)
    return made


def tell_story(memories: list[Memory], rng: random.Random) -> None:
    """Edit some memories over the last three weeks, by people and an agent, with reasons."""
    ana, chen = authors()
    now = now_ms()
    chosen = rng.sample(memories, min(24, len(memories)))
    for index, memory in enumerate(chosen):
        with acting(actor="system", reason="", new_change=True):  # one change per edit
            _edit(index, memory, ana, chen, now, rng)


def _edit(index, memory, ana, chen, now, rng) -> None:
    """Make one edit of the story: importance, wording or status, by turns."""
    at = now - rng.randint(1, 21) * DAY_MS + rng.randint(0, 8) * 3_600_000
    current = Memory.objects.get(pk=memory.pk)
    try:
        if index % 3 == 0:
            memory_update(
                memory=current,
                importance=min(100, (current.importance or 50) + 20),
                actor=ana,
                reason=rng.choice(IMPORTANCE_REASONS),
                at_ms=max(at, current.updated_at + 1),
            )
        elif index % 3 == 1:
            suffix, reason = rng.choice(CLARIFICATIONS)
            memory_update(
                memory=current,
                content=current.content + suffix,
                actor=chen if index % 2 else ana,
                reason=reason,
                at_ms=max(at, current.updated_at + 1),
            )
        else:
            memory_update(
                memory=current,
                status=Memory.Status.PERMANENT,
                actor="agent",
                reason="Verified against the live configuration; keep it.",
                at_ms=max(at, current.updated_at + 1),
            )
    except DuplicateMemory:
        return


def date_history(since: datetime) -> None:
    """Date the versions and events written since `since` (the build) as the module says.

    The build writes everything within one change, so events are matched to versions by
    the wall-clock time the build wrote them: an event takes the date of the last memory
    version written before it.
    """
    versions = list(Memory.history.filter(history_date__gte=since).order_by("history_date"))
    if not versions:
        return
    written = [version.history_date for version in versions]
    for version in versions:
        version.history_date = ms_to_datetime(version.updated_at)
    Memory.history.bulk_update(versions, ["history_date"], batch_size=500)
    first = versions[0].history_date - timedelta(minutes=10)

    def dated(moment: datetime) -> datetime:
        index = bisect_right(written, moment) - 1
        return versions[index].history_date if index >= 0 else first

    events = list(AuditEvent.objects.filter(created_at__gte=since))
    for event in events:
        event.created_at = dated(event.created_at)
    AuditEvent.objects.bulk_update(events, ["created_at"], batch_size=500)
    for model in (Composite, CompositeMember):
        rows = list(model.history.filter(history_date__gte=since))
        for row in rows:
            row.history_date = dated(row.history_date)
        model.history.bulk_update(rows, ["history_date"], batch_size=500)

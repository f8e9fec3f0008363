"""Apply the structure assistant's suggestions: one audited change, undoable as a whole.

`structure_apply` reads the project's suggestions again and applies the ones named by key,
each through the services a person's own edit uses, so every write is audited with its
actor and reason and reaches a synced store as any other edit does:

- a monolith: `memory_fragment` with the suggestion's split and its header as the summary
  (details created, header over them, the monolith archived, pointing at the header);
- a family: the header created in the family's category, a theme composite of the members
  under it, and the header marked synced with its details.

The whole is one change (`audit.context.acting`), so the overview's Undo takes it back
(`overview.undo_services.change_undo`: headers and details archived, composites deleted,
monoliths restored). A suggestion shown on a page that no longer exists as shown (a member
or a text changed, a memory now grouped) is refused with the others, nothing written; so is a
header a person edited to nothing, or past the limit stated on the page.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from uuid import UUID

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.actors import as_actor
from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.composites.models import Composite, CompositeMember
from memadmin.composites.services import composite_create
from memadmin.core.clock import now_ms
from memadmin.core.structure import HEADER_TOKEN_LIMIT, Suggestion
from memadmin.core.structure.monoliths import text_digest
from memadmin.headermap.models import HeaderSync
from memadmin.memories.models import Memory
from memadmin.memories.services import DuplicateMemory, memory_create
from memadmin.projects.models import Project
from memadmin.structure.fragment_services import HEADER_IMPORTANCE, memory_fragment
from memadmin.structure.suggestions import structure_plan

APPLIED = "structure_applied"
LIVE = (Memory.Status.ACTIVE, Memory.Status.PERMANENT)
MAX_HEADER_CHARACTERS = 2000


class SuggestionsChanged(ValidationError):
    """A suggestion chosen on a page is no longer as the page showed it; nothing applied."""


@dataclass
class Applied:
    """What one apply made: a header and a composite per suggestion, in the order applied."""

    change_id: UUID
    headers: list[Memory] = field(default_factory=list)
    composites: list[Composite] = field(default_factory=list)
    fragmented: list[Memory] = field(default_factory=list)

    themes: int = 0

    def summary(self) -> str:
        """Return a sentence for the person who applied them."""
        count = len(self.headers)
        grouped = count - len(self.fragmented) - self.themes
        parts = []
        if self.fragmented:
            parts.append(f"{len(self.fragmented)} fragmented")
        if grouped:
            parts.append(f"{grouped} famil{'y' if grouped == 1 else 'ies'} grouped")
        if self.themes:
            parts.append(f"{self.themes} theme{'' if self.themes == 1 else 's'} over headers")
        return f"Applied {count} suggestion{'' if count == 1 else 's'}: " + ", ".join(parts) + "."


def _chosen(project: Project, keys: Sequence[str], *, counter, header_limit: int, shown, pk_of):
    if not keys:
        raise ValidationError("Choose at least one suggestion to apply.")
    if shown is None:  # suggested again now: a suggestion changed since has another key
        plan = structure_plan(
            project, counter=counter, budgets=(), now_ms=now_ms(), header_limit=header_limit
        )
        shown, pk_of = plan.suggestions, plan.pk_of
    by_key = {suggestion.key: suggestion for suggestion in shown}
    gone = [key for key in dict.fromkeys(keys) if key not in by_key]
    chosen = [by_key[key] for key in dict.fromkeys(keys) if key in by_key]
    # Checked, and locked until applied, even when just suggested again: the suggesting
    # itself reads without locks.
    gone += _changed(project, chosen, pk_of)
    if gone:
        raise SuggestionsChanged(
            f"{len(gone)} of the suggestions you chose changed since the page was shown (a "
            "memory, its text or its group changed): nothing was applied. The page now shows "
            "the suggestions as they are; check them and apply again."
        )
    return chosen, pk_of


def _changed(project: Project, chosen: Sequence[Suggestion], pk_of: Mapping[int, int]) -> list[str]:
    """Return the keys of the suggestions whose memories are no longer as they were drawn
    from: gone, not live, another text, or in a composite (a theme's headers: as a member).
    Three queries, however many suggestions. The memories are read under their row locks,
    held until the suggestions are applied: a text saved after this check (PostgreSQL lets it
    in, SQLite's transaction does not) would be split at the boundaries of the old one."""
    named = {
        suggestion.key: [suggestion.source_id]
        if suggestion.source_id is not None
        else list(suggestion.member_ids)
        for suggestion in chosen
    }
    pks = {pk_of.get(shown) for ids in named.values() for shown in ids} - {None}
    rows = (
        Memory.objects.select_for_update(of=("self",))
        .filter(project=project, pk__in=pks, status__in=LIVE)
        .in_bulk()
    )
    heads = set(Composite.objects.filter(head__in=pks).values_list("head_id", flat=True))
    members = set(
        CompositeMember.objects.filter(member__in=pks).values_list("member_id", flat=True)
    )
    changed = []
    for suggestion in chosen:
        ids = named[suggestion.key]
        found = [rows.get(pk_of.get(shown)) for shown in ids]
        if None in found:
            changed.append(suggestion.key)
            continue
        if suggestion.source_id is not None:
            same = suggestion.key.rsplit(":", 1)[-1] == text_digest(found[0].content)
        else:
            texts = {detail.memory_id: detail.text for detail in suggestion.details}
            same = all(row.content == texts[shown] for row, shown in zip(found, ids, strict=True))
        # A theme's headers head their details still; no other memory may be in a composite.
        taken = members if suggestion.kind == "theme" else heads | members
        if not same or any(row.pk in taken for row in found):
            changed.append(suggestion.key)
    return changed


def _header_text(suggestion: Suggestion, edited: Mapping[str, str], counter, limit: int) -> str:
    text = " ".join(edited.get(suggestion.key, suggestion.header).split())
    if not text:
        raise ValidationError(f"The header of “{suggestion.header[:60]}…” is empty: write one.")
    if len(text) > MAX_HEADER_CHARACTERS or counter.count(text) > limit:
        raise ValidationError(
            f"The header “{text[:60]}…” takes {counter.count(text)} tokens, over the limit of "
            f"{limit}: shorten it (the details' ids are listed after it anyway)."
        )
    return text


@transaction.atomic
def structure_apply(
    *,
    project: Project,
    keys: Sequence[str],
    actor,
    counter,
    reason: str = "",
    headers: Mapping[str, str] | None = None,
    header_limit: int = HEADER_TOKEN_LIMIT,
    at_ms: int | None = None,
    shown: Sequence[Suggestion] | None = None,
    pk_of: Mapping[int, int] | None = None,
) -> Applied:
    """Apply the suggestions named by `keys` (with `headers` as edited, by key) in one change.

    Refused with ValidationError, nothing written, as the module says; a refusal of any
    service inside (a header identical to an existing memory, a member archived since) too.
    `at_ms` dates the writes (now unless given: the demo dates them in its story). `shown`
    (with `pk_of`) are the suggestions the caller showed (a page, a background run, the
    command's plan): the chosen ones are checked against the memories as they are now instead
    of suggesting again, which at 100,000 memories takes half a minute. Without them the
    project is suggested again and the keys looked up in that.
    """
    chosen, pk_of = _chosen(
        project, keys, counter=counter, header_limit=header_limit, shown=shown, pk_of=pk_of
    )
    edited = headers or {}
    texts = {s.key: _header_text(s, edited, counter, header_limit) for s in chosen}
    reason = reason.strip() or "Applied the structure assistant's suggestions"
    at = at_ms if at_ms is not None else now_ms()
    with acting(actor=actor, reason=reason) as change:
        applied = Applied(change_id=change.change_id)
        for suggestion in chosen:
            text = texts[suggestion.key]
            if suggestion.source_id is not None:
                _fragment(suggestion, text, pk_of, applied, actor, reason, at)
            else:
                _group(project, suggestion, text, pk_of, applied, actor, reason, at)
                applied.themes += suggestion.kind == "theme"
        audit_record(
            action=APPLIED,
            target=project,
            project=project,
            object_type="project",
            changes={
                "suggestions": [s.key for s in chosen],
                "headers": [header.pk for header in applied.headers],
                "composites": [composite.pk for composite in applied.composites],
                "fragmented": [memory.pk for memory in applied.fragmented],
            },
        )
    return applied


def _fragment(suggestion, header_text, pk_of, applied, actor, reason, at) -> None:
    memory = Memory.objects.get(pk=pk_of[suggestion.source_id])
    made = memory_fragment(
        memory=memory,
        boundaries=list(suggestion.boundaries),
        composite_type=suggestion.composite_type,
        summary=header_text,
        header_category=suggestion.category,
        actor=actor,
        reason=reason,
        at_ms=at,
        expected_updated_at=memory.updated_at,
    )
    applied.headers.append(made.header)
    applied.composites.append(made.composite)
    applied.fragmented.append(made.original)


def _group(project, suggestion, header_text, pk_of, applied, actor, reason, at) -> None:
    members = list(Memory.objects.filter(pk__in=[pk_of[i] for i in suggestion.member_ids]))
    members.sort(key=lambda m: suggestion.member_ids.index(m.display_id))
    try:
        header = memory_create(
            project=project,
            category=suggestion.category,
            content=header_text,
            importance=max([HEADER_IMPORTANCE, *(m.importance or 0 for m in members)]),
            actor=actor,
            reason=reason,
            at_ms=at,
        )
    except DuplicateMemory as duplicate:
        raise ValidationError(
            f"The header “{header_text[:60]}…” is the same text as "
            f"#{duplicate.existing.display_id}; edit it before applying."
        ) from duplicate
    composite = composite_create(
        head=header,
        type=suggestion.composite_type,
        members=members,
        title=header_text.split(" (", 1)[0][:200],
        actor=actor,
        reason=reason,
        at_ms=at,
    )
    HeaderSync.objects.create(header=header, synced_at=at, synced_by=as_actor(actor).label)
    applied.headers.append(header)
    applied.composites.append(composite)

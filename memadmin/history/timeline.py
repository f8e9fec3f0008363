"""A memory's timeline: every change to it, who made it, when and why, newest first.

The timeline is read from the versions django-simple-history keeps: the memory's own
versions (created, edited, recategorised, archived and restored, merged, superseded), the
composite memberships that ever named it (joined, left) and the composites it ever headed.
Audit events about the memory are matched to the version written in the same change: the
one stamped with the event's change id, or, for rows from before change ids, the one by the
same actor a few seconds apart. An event lends its kind of change when it says more than the
version does (reverted, fragmented, merged), and an event with no version of its own is an
entry by itself.
"""

from datetime import timedelta

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.worddiff import word_diff
from memadmin.memories.models import Memory

from .timeline_entries import (
    GENERIC_ACTIONS,
    KIND_ORDER,
    CompositeRef,
    MemoryRef,
    TimelineEntry,
)

# What a version can change that a reader of the timeline cares about; a version that
# changes only counters or timestamps (a sync seeing the memory again) is not shown.
WATCHED_FIELDS = (
    "content",
    "category",
    "importance",
    "scope",
    "shareable",
    "status",
    "superseded_by_id",
    "merged_from",
)
MINOR_FIELDS = ("importance", "scope", "shareable")

MATCH_WINDOW = timedelta(seconds=5)


def memory_timeline(memory: Memory, *, limit: int | None = None) -> list[TimelineEntry]:
    """Return the memory's timeline, newest first (at most `limit` entries if given)."""
    versions = list(
        Memory.history.filter(id=memory.pk)
        .only(*_VERSION_FIELDS)
        .order_by("history_date", "history_id")
    )
    references = _memory_references(versions)
    entries = _version_entries(versions, references)
    entries += _membership_entries(memory.pk)
    entries += _head_entries(memory.pk)
    events = list(
        AuditEvent.objects.filter(object_type="memory", object_id=str(memory.pk)).order_by(
            "created_at", "id"
        )
    )
    entries = _with_events(entries, events)
    _mark_fragment_origin(entries, memory.pk)
    entries.sort(key=lambda entry: entry.at, reverse=True)
    return entries[:limit] if limit is not None else entries


_VERSION_FIELDS = (
    "history_id",
    "history_date",
    "history_type",
    "history_change_reason",
    "history_actor",
    "history_actor_kind",
    "history_change_id",
    "id",
    *WATCHED_FIELDS,
)


def _memory_references(versions) -> dict[int, Memory]:
    """Return the successors and merge sources the versions name, by primary key."""
    pks: set[int] = set()
    for version in versions:
        if version.superseded_by_id:
            pks.add(version.superseded_by_id)
        pks.update(pk for pk in version.merged_from or [] if isinstance(pk, int))
    if not pks:
        return {}
    found = Memory.objects.filter(pk__in=pks).only("id", "upstream_id", "merged_from")
    return {memory.pk: memory for memory in found}


def _ref(pk: int, references: dict[int, Memory]) -> MemoryRef:
    memory = references.get(pk)
    if memory is None:
        return MemoryRef(pk=pk, display_id=pk, exists=False)
    return MemoryRef(pk=pk, display_id=memory.display_id, exists=True)


def _entry_for(version, **values) -> TimelineEntry:
    return TimelineEntry(
        at=version.history_date,
        actor=version.history_actor or "unknown",
        actor_kind=version.history_actor_kind,
        reason=version.history_change_reason or "",
        change_id=version.history_change_id,
        **values,
    )


def _version_entries(versions, references: dict[int, Memory]) -> list[TimelineEntry]:
    """Return one entry per version of the memory that changes something watched."""
    entries = []
    previous = None
    for version in versions:
        if version.history_type == "+":
            sources = [pk for pk in version.merged_from or [] if isinstance(pk, int)]
            entries.append(
                _entry_for(
                    version,
                    kinds=["merged_from" if sources else "created"],
                    memories=[_ref(pk, references) for pk in sources],
                    version_id=version.history_id,
                )
            )
        elif version.history_type == "-":
            entries.append(_entry_for(version, kinds=["deleted"], version_id=version.history_id))
        elif previous is not None:
            entries.append(_change_entry(previous, version, references))
        previous = version
    return entries


def _change_entry(previous, version, references: dict[int, Memory]) -> TimelineEntry:
    """Return the entry describing what one version changed from the one before."""
    entry = _entry_for(version, version_id=version.history_id)
    changed = {name for name in WATCHED_FIELDS if getattr(previous, name) != getattr(version, name)}
    successor = version.superseded_by_id
    if "superseded_by_id" in changed and successor:
        merged = version.id in (getattr(references.get(successor), "merged_from", None) or [])
        entry.kinds.append("merged_into" if merged else "superseded")
        entry.memories.append(_ref(successor, references))
    if "merged_from" in changed:
        added = [pk for pk in version.merged_from or [] if pk not in (previous.merged_from or [])]
        if added:
            entry.kinds.append("merged_from")
            entry.memories += [_ref(pk, references) for pk in added if isinstance(pk, int)]
    if "content" in changed:
        entry.kinds.append("edited")
        entry.diff = word_diff(previous.content, version.content)
    if "category" in changed:
        entry.kinds.append("recategorised")
        entry.category_change = (previous.category, version.category)
    minor = [(n, getattr(previous, n), getattr(version, n)) for n in MINOR_FIELDS if n in changed]
    if "status" in changed:
        entry.status_change = (previous.status, version.status)
        if version.status == Memory.Status.ARCHIVED:
            entry.kinds.append("archived")
        elif previous.status == Memory.Status.ARCHIVED:
            entry.kinds.append("restored")
        else:
            minor.append(("status", previous.status, version.status))
    if minor:
        entry.minor_changes = minor
        if "edited" not in entry.kinds:
            entry.kinds.append("edited")
    entry.kinds.sort(key=KIND_ORDER.index)
    entry.quiet = not entry.kinds
    return entry


def _membership_entries(memory_pk: int) -> list[TimelineEntry]:
    """Return an entry each time the memory joined or left a composite as a member."""
    history = CompositeMember.history
    row_ids = history.filter(member_id=memory_pk).values("id")
    rows = list(history.filter(id__in=row_ids).order_by("id", "history_date", "history_id"))
    composites = _composites_named(rows)
    entries = []
    for previous, version in _transitions(rows):
        was = previous is not None and previous.history_type != "-"
        was = was and previous.member_id == memory_pk
        now = version.history_type != "-" and version.member_id == memory_pk
        if was == now:
            continue
        composite = composites.get(version.composite_id) or CompositeRef(
            pk=version.composite_id, type="composite", title=""
        )
        position = version.position if now else previous.position
        entries.append(
            _entry_for(
                version,
                kinds=["joined" if now else "left"],
                composite=CompositeRef(composite.pk, composite.type, composite.title, position),
            )
        )
    return entries


def _head_entries(memory_pk: int) -> list[TimelineEntry]:
    """Return an entry each time the memory became, or stopped being, a composite's head."""
    history = Composite.history
    row_ids = history.filter(head_id=memory_pk).values("id")
    rows = history.filter(id__in=row_ids).order_by("id", "history_date", "history_id")
    entries = []
    for previous, version in _transitions(rows):
        was = previous is not None and previous.history_type != "-"
        was = was and previous.head_id == memory_pk
        now = version.history_type != "-" and version.head_id == memory_pk
        if was == now:
            continue
        source = version if now else previous
        entries.append(
            _entry_for(
                version,
                kinds=["headed" if now else "unheaded"],
                composite=CompositeRef(source.id, source.type, source.title),
            )
        )
    return entries


def _transitions(rows):
    """Yield (previous version or None, version) for each object's versions in order."""
    previous = None
    for row in rows:
        yield (previous if previous is not None and previous.id == row.id else None), row
        previous = row


def _composites_named(member_rows) -> dict[int, CompositeRef]:
    """Return each composite the membership rows name, as its latest version describes it."""
    ids = {row.composite_id for row in member_rows}
    if not ids:
        return {}
    latest: dict[int, CompositeRef] = {}
    for row in Composite.history.filter(id__in=ids).order_by("history_date", "history_id"):
        latest[row.id] = CompositeRef(pk=row.id, type=row.type, title=row.title)
    return latest


def _with_events(entries: list[TimelineEntry], events: list[AuditEvent]) -> list[TimelineEntry]:
    """Attach each event to the version of the same change, or make it an entry of its own."""
    candidates = [e for e in entries if e.version_id is not None]
    matched: set[int] = set()
    standalone = []
    for event in events:
        entry = _same_change(event, candidates, matched) or _nearest(event, candidates, matched)
        if entry is None:
            standalone.append(_event_entry(event))
            continue
        matched.add(id(entry))
        entry.action = event.action
        entry.reason = entry.reason or event.reason
        if event.action not in GENERIC_ACTIONS:
            kind = _kind_of_action(event.action)
            entry.kinds = [kind, *(k for k in entry.kinds if k != kind)]
    kept = [e for e in entries if not e.quiet or id(e) in matched]
    return kept + standalone


def _mark_fragment_origin(entries: list[TimelineEntry], memory_pk: int) -> None:
    """Name the memory a header or detail was split from, on the entry that created it.

    The fragmentation's audit event is about the original and lists the header and the
    details it made; it is written in the change that created them (before change ids: by
    the same actor within seconds of their creation).
    """
    created = next((e for e in entries if e.kind == "created"), None)
    if created is None:
        return
    if created.change_id is not None:
        same_change = {"change_id": created.change_id}
    else:
        same_change = {
            "actor_label": created.actor,
            "created_at__gte": created.at - MATCH_WINDOW,
            "created_at__lte": created.at + MATCH_WINDOW,
        }
    events = AuditEvent.objects.filter(action="fragmented", **same_change).only(
        "object_id", "changes"
    )
    for event in events:
        changes = event.changes or {}
        made = [changes.get("header"), *(changes.get("details") or [])]
        if memory_pk in made and event.object_id.isdigit():
            original = int(event.object_id)
            created.kinds = ["fragment_of"]
            created.memories = [_ref(original, dict(Memory.objects.in_bulk([original])))]
            return


def _same_change(event: AuditEvent, candidates: list[TimelineEntry], matched: set[int]):
    """Return the version the event's change wrote, or None if it wrote none left unmatched.

    A change that wrote several versions of the memory pairs its events with them in order:
    an event takes the earliest version written before it, else the first written after.
    """
    if event.change_id is None:
        return None
    same = [e for e in candidates if e.change_id == event.change_id and id(e) not in matched]
    before = [e for e in same if e.at <= event.created_at]
    return min(before or same, key=lambda entry: entry.at, default=None)


def _nearest(event: AuditEvent, candidates: list[TimelineEntry], matched: set[int]):
    """Return the unstamped version by the event's actor nearest in time, within the window.

    Only versions without a change id (written before change ids) are paired by time.
    """
    best, best_gap = None, MATCH_WINDOW
    for entry in candidates:
        if id(entry) in matched or entry.change_id is not None:
            continue
        if entry.actor != event.actor_label:
            continue
        gap = abs(entry.at - event.created_at)
        if gap <= best_gap:
            best, best_gap = entry, gap
    return best


def _kind_of_action(action: str) -> str:
    """Return the timeline kind an audit action names (`merged` is the result's side)."""
    aliases = {"merged": "merged_from", "memory_merged": "merged_from", "merge": "merged_from"}
    if action in aliases:
        return aliases[action]
    if action.startswith("fragment"):
        return "fragmented"
    if action.endswith("reverted") or action == "revert":
        return "reverted"
    return action


def _event_entry(event: AuditEvent) -> TimelineEntry:
    """Return an entry for an event that no version of the memory accompanies."""
    entry = TimelineEntry(
        at=event.created_at,
        actor=event.actor_label,
        actor_kind=event.actor_kind,
        reason=event.reason,
        kinds=[_kind_of_action(event.action)],
        action=event.action,
    )
    content = (event.changes or {}).get("content")
    if isinstance(content, list) and len(content) == 2 and all(isinstance(t, str) for t in content):
        entry.diff = word_diff(content[0], content[1])
    return entry

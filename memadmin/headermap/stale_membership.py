"""Read how a header's details changed as a set: members that joined, left or moved.

A header's details are the members of the composites it heads, so the set changes when a
memory joins or leaves one of them, when members are reordered, when a composite of it is
made, and when one is deleted while the header still heads another. The composite services
stamp each change on the milliseconds clock (`Composite.members_changed_at`, `made_at`; see
`composites.services`), and these are compared with the header's sync in SQL:

- a composite counts its membership from the header's last sync, or, the header never
  synced, from its own making: the members a composite is made with are where a new header
  starts, as the details it is written over are;
- a deleted composite is read from the history row recording its deletion, which keeps the
  time of the deletion in `members_changed_at`.

What changed, by whom and why is read from the composites' audit events, which carry the
same stamps; an event older than the stamps counts at the time it was recorded.
"""

from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db.models import Exists, F, IntegerField, OuterRef, Q, QuerySet
from django.db.models.functions import Coalesce

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

LIVE = (Memory.Status.ACTIVE, Memory.Status.PERMANENT)
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# The audit actions that change a composite's members, and what each is called here.
KINDS = {
    "composite_created": "made",
    "composite_member_added": "joined",
    "composite_member_removed": "left",
    "composite_member_moved": "moved",
    "composite_deleted": "deleted",
}


@dataclass(frozen=True, slots=True)
class DetailRef:
    """A memory a membership change names; `exists` is False once it was deleted."""

    pk: int
    display_id: int
    exists: bool = True


@dataclass(frozen=True, slots=True)
class MembershipChange:
    """One change to a header's set of details: what, in which composite, when, who, why.

    `kind` is "joined", "left", "moved" (members reordered), "made" (a composite made after
    the sync, with `members`) or "deleted" (a composite deleted, with the members it had).
    """

    kind: str
    composite_pk: int
    composite_type: str
    composite_title: str
    composite_exists: bool
    members: tuple[DetailRef, ...]
    at: int
    actor: str
    reason: str
    # Moves of the same members in a row, by one actor, are one change (`times` of them).
    times: int = 1

    def composite_name(self, fill: Callable[..., str] = str.format) -> str:
        """Return the composite's name: its title in quotes ("'Deploy'"), else "#<id>"."""
        if self.composite_title:
            return fill("'{}'", self.composite_title)
        return fill("#{}", self.composite_pk)

    def sentence(
        self, fill: Callable[..., str] = str.format, *, name: str = "", members: str = ""
    ) -> str:
        """Return the change as one sentence, e.g. "#12 joined the sequence 'Deploy'".

        `fill` is `str.format` for text, or `format_html` for a page, which passes the
        composite's `name` and the `members` already linked (the ids, else).
        """
        name = name or self.composite_name(fill)
        members = members or ", ".join(f"#{member.display_id}" for member in self.members)
        the, the_capital = (
            fill(f"{the} {{}} {{}}", self.composite_type, name) for the in ("the", "The")
        )
        if self.kind == "made":
            pattern = "{The} was made" + (" with {members}" if self.members else "")
        elif self.kind == "deleted":
            pattern = "{The} was deleted" + ("; {members} left with it" if self.members else "")
        else:
            verb = {"joined": "joined", "left": "left", "moved": "moved within"}[self.kind]
            pattern = f"{{members}} {verb} {{the}}" + (
                f" ({self.times} moves)" if self.times > 1 else ""
            )
        return fill(pattern, the=the, The=the_capital, members=members)

    @property
    def summary(self) -> str:
        """Return the change as one sentence of text, as the command prints it."""
        return self.sentence()

    def repeats(self, earlier: "MembershipChange") -> bool:
        """Return True if this is another move of the same members, by the same actor."""
        return self.kind == earlier.kind == "moved" and (
            (self.composite_pk, self.members, self.actor)
            == (earlier.composite_pk, earlier.members, earlier.actor)
        )


@dataclass(frozen=True, slots=True)
class ChangedComposite:
    """A composite (live, or deleted) whose members changed after `since`, and its head."""

    pk: int
    head_id: int
    type: str
    title: str
    since: int
    exists: bool = True


# Filters rows passed through `with_membership_stamps`: their members changed since.
MEMBERS_CHANGED = Q(members_changed__gt=F("members_since"))


def with_membership_stamps(rows: QuerySet, project: Project | None = None) -> QuerySet:
    """Return the composites (or their history rows) of live heads, of `project` if given.

    Each gets `members_since` and `members_changed` (its last membership change, or its
    making while there was none) aliased, for MEMBERS_CHANGED to compare.
    """
    rows = rows.filter(head__status__in=LIVE)
    if project is not None:
        rows = rows.filter(project=project)
    return rows.alias(
        # Counted from the head's sync, else from the composite's making.
        members_since=Coalesce(
            F("head__header_sync__synced_at"), F("made_at"), output_field=IntegerField()
        ),
        members_changed=Coalesce(
            F("members_changed_at"), F("made_at"), output_field=IntegerField()
        ),
    ).order_by()


def deleted_composites(project: Project | None = None) -> QuerySet:
    """Return the history rows of composites deleted since their head's sync.

    Only heads that are live and still head a composite count: a memory heading nothing is
    no longer a header.
    """
    rows = Composite.history.filter(history_type="-").filter(
        Exists(Composite.objects.filter(head=OuterRef("head_id")))
    )
    return with_membership_stamps(rows, project).filter(MEMBERS_CHANGED)


def changed_composites(
    project: Project | None = None, heads: Collection[int] | None = None
) -> list[ChangedComposite]:
    """Return the live and deleted composites whose members changed (two queries).

    `heads` limits them to the composites of those heads (a page of the stale queue).
    """
    fields = ("head_id", "type", "title", "since")
    live = with_membership_stamps(Composite.objects.all(), project).filter(MEMBERS_CHANGED)
    gone = deleted_composites(project)
    if heads is not None:
        live, gone = live.filter(head_id__in=heads), gone.filter(head_id__in=heads)
    live_rows = live.annotate(since=F("members_since")).values_list("pk", *fields)
    gone = gone.annotate(since=F("members_since"))
    return [ChangedComposite(*row) for row in live_rows] + [
        ChangedComposite(*row, exists=False) for row in gone.values_list("id", *fields)
    ]


def _ms(moment: datetime) -> int:
    return (moment - EPOCH) // timedelta(milliseconds=1)


def _stamp(action: str, changes: dict, recorded: datetime) -> int:
    """Return when an event happened on the composites' clock (its stamp, else its record)."""
    if action == "composite_created" and isinstance(changes.get("made_at"), int):
        return changes["made_at"]
    stamp = changes.get("members_changed_at")
    if isinstance(stamp, list) and len(stamp) == 2 and isinstance(stamp[1], int):
        return stamp[1]
    return _ms(recorded)


def _named(action: str, changes: dict) -> list[int]:
    """Return the memories an event names: added, removed, moved, or every member."""
    named = {
        "composite_member_added": changes.get("added"),
        "composite_member_removed": [changes.get("removed")],
        "composite_member_moved": [changes.get("moved")],
    }.get(action, changes.get("members"))
    return [pk for pk in named or [] if isinstance(pk, int)]


def membership_events(composites: list[ChangedComposite]) -> list[tuple[int, dict]]:
    """Return (head id, event) for each membership change after its composite's `since`.

    One query over the audit trail; each event is a dict of kind, composite, member ids,
    at, actor and reason, oldest first.
    """
    if not composites:
        return []
    by_pk = {composite.pk: composite for composite in composites}
    rows = (
        AuditEvent.objects.filter(
            object_type="composite", object_id__in=[str(pk) for pk in by_pk], action__in=KINDS
        )
        .order_by("created_at", "id")
        .values_list("object_id", "action", "created_at", "changes", "actor_label", "reason")
    )
    events = []
    for object_id, action, recorded, changes, actor, reason in rows:
        composite = by_pk[int(object_id)]
        changes = changes if isinstance(changes, dict) else {}
        at = _stamp(action, changes, recorded)
        if at <= composite.since:
            continue
        event = {
            "kind": KINDS[action],
            "composite": composite,
            "members": _named(action, changes),
            "at": at,
            "actor": actor or "unknown",
            "reason": reason or "",
        }
        events.append((composite.head_id, event))
    return events


def membership_change(event: dict, memories: dict[int, Memory]) -> MembershipChange:
    """Return the event as a MembershipChange, naming its members from `memories`."""
    composite: ChangedComposite = event["composite"]
    members = tuple(
        DetailRef(pk, memories[pk].display_id) if pk in memories else DetailRef(pk, pk, False)
        for pk in event["members"]
    )
    return MembershipChange(
        kind=event["kind"],
        composite_pk=composite.pk,
        composite_type=composite.type,
        composite_title=composite.title,
        composite_exists=composite.exists,
        members=members,
        at=event["at"],
        actor=event["actor"],
        reason=event["reason"],
    )

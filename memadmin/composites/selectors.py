"""Read composites and reference sets, each in a fixed number of queries."""

from collections.abc import Sequence

from django.core.exceptions import ValidationError
from django.db.models import Count, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from memadmin.core.hashing import content_digest
from memadmin.memories.models import Memory

from .drift import DriftRow, drift
from .models import Composite, CompositeMember, ReferenceSet

SIZES = {
    "empty": (0, 0),
    "small": (1, 3),
    "medium": (4, 9),
    "large": (10, None),
}
SIZE_LABELS = {
    "empty": "no member",
    "small": "1 to 3 members",
    "medium": "4 to 9 members",
    "large": "10 members or more",
}


def _ordered_members() -> Prefetch:
    return Prefetch(
        "members",
        queryset=CompositeMember.objects.select_related("member").order_by("position", "id"),
    )


class CompositeRows(Sequence):
    """Composites as a paginator reads them: counted and ordered by their ids alone.

    A page's slice reads its ids (a sort of the composites' own rows), then only those
    composites with their head, project, size and members: no join or count runs over
    every composite of a large store.
    """

    def __init__(self, ids: QuerySet):
        self.ids = ids

    def count(self) -> int:
        """Return how many composites there are (one query)."""
        return self.ids.count()

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index):
        if not isinstance(index, slice):
            return self[index : index + 1][0]
        ids = list(self.ids[index])
        member_count = (
            CompositeMember.objects.filter(composite=OuterRef("pk"))
            .order_by()
            .values("composite")
            .annotate(n=Count("id"))
            .values("n")
        )
        found = (
            Composite.objects.filter(pk__in=ids)
            .select_related("head", "project")
            .annotate(size=Coalesce(Subquery(member_count), 0))
            .prefetch_related(_ordered_members())
            .in_bulk()
        )
        return [found[pk] for pk in ids if pk in found]


def composite_list(
    *, project=None, type: str = "", head_category: str = "", size: str = ""
) -> CompositeRows:
    """Return composites with their head, size and members, filtered as asked, newest first.

    `size` is one of SIZES' keys: empty, small (1-3), medium (4-9), large (10+).
    """
    composites = Composite.objects.order_by("-updated_at", "-id")
    if project is not None:
        composites = composites.filter(project=project)
    if type:
        composites = composites.filter(type=type)
    if head_category:
        composites = composites.filter(head__category=head_category)
    if size in SIZES:
        low, high = SIZES[size]
        composites = composites.annotate(size=Count("members")).filter(size__gte=low)
        if high is not None:
            composites = composites.filter(size__lte=high)
    return CompositeRows(composites.values_list("id", flat=True))


def composite_detail(pk: int) -> Composite:
    """Return one composite with its head, project and ordered members, or raise DoesNotExist."""
    return (
        Composite.objects.select_related("head", "project", "project__pack")
        .prefetch_related(_ordered_members())
        .get(pk=pk)
    )


def head_categories() -> list[str]:
    """Return the categories of the memories that head a composite, sorted."""
    heads = Composite.objects.order_by().values_list("head__category", flat=True).distinct()
    return sorted(set(heads))


def memory_composites(memory: Memory) -> dict:
    """Return both query paths from a memory, in three queries however many there are.

    `headed`: the composites it heads, with their members (head -> groups). `member_of`:
    `(membership, composite)` for each composite it belongs to, with that composite's head
    (member -> groups -> head); `membership.position` is its 0-based place.
    """
    headed = list(
        Composite.objects.filter(head=memory)
        .select_related("head")
        .annotate(size=Count("members"))
        .prefetch_related(_ordered_members())
        .order_by("type", "pk")
    )
    memberships = list(
        CompositeMember.objects.filter(member=memory)
        .select_related("composite", "composite__head")
        .annotate(size=Count("composite__members"))
        .order_by("composite__type", "composite_id")
    )
    return {"headed": headed, "member_of": memberships}


def memory_cited(memory: Memory) -> bool:
    """Return True if a composite has the memory as its head or a member."""
    return (
        Composite.objects.filter(head=memory).exists()
        or CompositeMember.objects.filter(member=memory).exists()
    )


def pickable_composites() -> QuerySet[Composite]:
    """Return the composites a bulk add may pick from, with what the pick shows."""
    return Composite.objects.select_related("head", "project")


def reference_sets_of(composite: Composite) -> QuerySet[ReferenceSet]:
    """Return the snapshots taken of a composite, newest first."""
    return ReferenceSet.objects.filter(composite=composite).order_by("-frozen_at", "-id")


def reference_set_detail(ref: str) -> ReferenceSet:
    """Return the snapshot with this name, or raise ReferenceSet.DoesNotExist."""
    return ReferenceSet.objects.select_related("project", "composite").get(ref=ref)


def reference_set_drift(reference_set: ReferenceSet) -> list[DriftRow]:
    """Return how the live composite differs from the snapshot, in three queries."""
    frozen_ids = [item["id"] for item in reference_set.items]
    live = None
    composite = reference_set.composite
    if composite is not None:
        composite = composite_detail(composite.pk)
        live = [_live_item(composite.head, "head")] + [
            _live_item(row.member, "member") for row in composite.members.all()
        ]
    current = {
        memory.pk: {"digest": content_digest(memory.content), "status": memory.status}
        for memory in Memory.objects.filter(pk__in=frozen_ids).only("id", "content", "status")
    }
    return drift(reference_set.items, live, current)


def _live_item(memory: Memory, role: str) -> dict:
    return {
        "id": memory.pk,
        "display_id": memory.display_id,
        "role": role,
        "digest": content_digest(memory.content),
    }


def reference_set_export(reference_set: ReferenceSet) -> dict:
    """Return the snapshot in upstream #449's delegation shape, with its name."""
    return {
        "memory": {"prefetch_ids": reference_set.prefetch_ids, "mode": "frozen"},
        "snapshot_ref": reference_set.ref,
    }


def memories_by_display_ids(project, display_ids: list[int]) -> list[Memory]:
    """Return the project's memories with these display ids, in the order given.

    A display id is the upstream id of a synced memory, else ours. An id that names no
    memory, or two, is refused with a message naming it; every such id is named at once.
    """
    found = Memory.objects.filter(project=project).filter(
        Q(upstream_id__in=display_ids) | Q(upstream_id__isnull=True, pk__in=display_ids)
    )
    by_display: dict[int, list[Memory]] = {}
    for memory in found:
        by_display.setdefault(memory.display_id, []).append(memory)
    result, problems = [], []
    for display_id in display_ids:
        matches = by_display.get(display_id, [])
        if not matches:
            problems.append(f"No memory #{display_id} in {project.name}.")
        elif len(matches) > 1:
            problems.append(
                f"#{display_id} names two memories in {project.name} (an upstream id and a "
                "local one); add it from its memory page instead."
            )
        else:
            result.append(matches[0])
    if problems:
        raise ValidationError(problems)  # every bad id at once, not only the first
    return result


def composite_matches(term: str, *, project: int | None = None, limit: int = 20):
    """Return at most `limit` composites for a picker: the one of that id, or title matches."""
    composites = Composite.objects.select_related("head", "project").order_by("-updated_at", "-id")
    if project is not None:
        composites = composites.filter(project_id=project)
    wanted = term.strip().removeprefix("#")
    if wanted.isdigit():
        return list(composites.filter(pk=int(wanted))[:limit]) if len(wanted) < 19 else []
    return list(composites.filter(title__icontains=term.strip())[:limit])

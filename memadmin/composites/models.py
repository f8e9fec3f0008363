"""Relation blocks: composites, typed star-shaped groups with one head and ordered members.

The database refuses a member equal to its composite's head (triggers, see migration 0002)
and a member twice in one composite (a unique constraint), on SQLite and PostgreSQL alike.

Membership is stamped on the milliseconds clock of `core.clock` (the clock memories'
`created_at` and `updated_at` run on), so the stale-header queue (`headermap.stale_selectors`)
can compare it with a header's sync in SQL: when a composite was made, when its members last
changed, and when each member joined. The services in `services.py` and `member_services.py`
write the stamps; a row written elsewhere (a bulk import, the benchmark store, a merge's
repointing) gets the time of its writing from the field defaults.
"""

from django.db import models
from django.db.models import Q

from memadmin.audit.models import audited_history
from memadmin.core.clock import now_ms


class Composite(models.Model):
    """A typed group: one head memory and its ordered members, with a read cursor."""

    class Type(models.TextChoices):
        SEQUENCE = "sequence", "sequence (an ordered chain, e.g. an SOP)"
        THEME = "theme", "theme (a topical aggregation)"
        CAUSE = "cause", "cause (the head, and what led to it)"
        ALTERNATIVES = "alternatives", "alternatives (an unordered set of peers)"

    project = models.ForeignKey(
        "projects.Project", on_delete=models.CASCADE, related_name="composites"
    )
    type = models.CharField(max_length=12, choices=Type.choices)
    head = models.ForeignKey(
        "memories.Memory", on_delete=models.CASCADE, related_name="headed_composites"
    )
    title = models.CharField(max_length=200, blank=True, default="")
    cursor = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    made_at = models.BigIntegerField(
        default=now_ms, help_text="When it was made, in milliseconds since the epoch."
    )
    members_changed_at = models.BigIntegerField(
        null=True,
        blank=True,
        help_text=(
            "When a member last joined, left or moved, in milliseconds since the epoch; empty "
            "while the members are those it was made with, in their order. On the history row "
            "that records the composite's deletion, the time it was deleted."
        ),
    )

    history = audited_history()

    class Meta:
        ordering = ["-updated_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(type__in=["sequence", "theme", "cause", "alternatives"]),
                name="composite_type_known",
            ),
        ]

    def __str__(self) -> str:
        return self.title or f"{self.type} #{self.pk}"


class CompositeMember(models.Model):
    """One member of a composite at a position (0-based, contiguous), and when it joined."""

    composite = models.ForeignKey(Composite, on_delete=models.CASCADE, related_name="members")
    member = models.ForeignKey(
        "memories.Memory", on_delete=models.CASCADE, related_name="memberships"
    )
    position = models.PositiveIntegerField()
    joined_at = models.BigIntegerField(
        default=now_ms,
        help_text=(
            "When the memory joined, in milliseconds since the epoch: the composite's "
            "`made_at` for the members it was made with."
        ),
    )

    history = audited_history()

    class Meta:
        ordering = ["composite", "position"]
        constraints = [
            models.UniqueConstraint(
                fields=["composite", "member"],
                name="composite_member_once",
                violation_error_message="That memory is already a member of this composite.",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.composite_id}[{self.position}] = {self.member_id}"


class ReferenceSet(models.Model):
    """A frozen snapshot of a composite, for handing a sub-agent a fixed set of memories.

    The proposal's open question 2 (upstream #449): the reference set is a read-time snapshot
    over a composite, so the live structure stays free to change. The database refuses any
    update of a row (triggers, migration 0005): a snapshot is written once and only read.
    `items` lists the head then the members in order, each as `{"id", "display_id",
    "role", "digest"}` with `digest` the SHA-256 of the memory's exact text then.
    """

    ref = models.CharField(max_length=40, unique=True)
    project = models.ForeignKey(
        "projects.Project", on_delete=models.CASCADE, related_name="reference_sets"
    )
    composite = models.ForeignKey(
        Composite,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="reference_sets",
    )
    composite_type = models.CharField(max_length=12, choices=Composite.Type.choices)
    title = models.CharField(max_length=200, blank=True, default="")
    items = models.JSONField()
    cursor = models.PositiveIntegerField(default=0)
    frozen_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")
    frozen_by = models.CharField(max_length=150)
    note = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-frozen_at", "-id"]

    def __str__(self) -> str:
        return self.ref

    @property
    def prefetch_ids(self) -> list[str]:
        """Return the ids an agent fetches, as strings, head first (upstream #449's shape)."""
        return [str(item["display_id"]) for item in self.items]

"""Relation blocks: composites, typed star-shaped groups with one head and ordered members.

The database refuses a member equal to its composite's head (triggers, see migration 0002)
and a member twice in one composite (a unique constraint), on SQLite and PostgreSQL alike.
"""

from django.db import models
from django.db.models import Q
from simple_history.models import HistoricalRecords

from memadmin.audit.models import HistoryActorFields


class Composite(models.Model):
    """A typed group: one head memory and its ordered members, with a read cursor."""

    class Type(models.TextChoices):
        SEQUENCE = "sequence", "sequence (an ordered chain, e.g. an SOP)"
        THEME = "theme", "theme (a topical aggregation)"
        CAUSE = "cause", "cause (the head, and what led to it)"
        ALTERNATIVES = "alternatives", "alternatives (an unordered set of peers)"

    project = models.ForeignKey(
        "memories.Project", on_delete=models.CASCADE, related_name="composites"
    )
    type = models.CharField(max_length=12, choices=Type.choices)
    head = models.ForeignKey(
        "memories.Memory", on_delete=models.CASCADE, related_name="headed_composites"
    )
    title = models.CharField(max_length=200, blank=True, default="")
    cursor = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    history = HistoricalRecords(bases=[HistoryActorFields])

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
    """One member of a composite at a position (0-based, contiguous)."""

    composite = models.ForeignKey(Composite, on_delete=models.CASCADE, related_name="members")
    member = models.ForeignKey(
        "memories.Memory", on_delete=models.CASCADE, related_name="memberships"
    )
    position = models.PositiveIntegerField()

    history = HistoricalRecords(bases=[HistoryActorFields])

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

"""Content blocks: the memories of each project, mirroring magic-context's `memories` table.

Times are integers in milliseconds since the epoch, as upstream stores them, so that a synced
store round-trips exactly and the ledger renders byte for byte what the plugin injects.
"""

from django.db import models
from django.db.models import Q

from memadmin.audit.models import audited_history
from memadmin.core.contextdb.rules import (
    MEMORY_SCOPES,
    MEMORY_STATUSES,
    SOURCE_TYPES,
    VERIFICATION_STATUSES,
)


def _choices(name: str, values: tuple[str, ...]) -> type[models.TextChoices]:
    """Return the choices of one upstream word list: ACTIVE = "active", label "Active"."""
    return models.TextChoices(name, [(value.upper(), value) for value in values])


class Memory(models.Model):
    """A memory: one row of upstream's `memories` table, plus the upstream id it came from."""

    # The vocabulary is upstream's, kept once in the core (`core.contextdb.rules`).
    Status = _choices("Status", MEMORY_STATUSES)
    Scope = _choices("Scope", MEMORY_SCOPES)
    SourceType = _choices("SourceType", SOURCE_TYPES)
    Verification = _choices("Verification", VERIFICATION_STATUSES)

    project = models.ForeignKey(
        "projects.Project", on_delete=models.CASCADE, related_name="memories"
    )
    upstream_id = models.BigIntegerField(null=True, blank=True)
    category = models.CharField(max_length=40)
    content = models.TextField()
    normalized_hash = models.CharField(max_length=32, editable=False)
    importance = models.PositiveSmallIntegerField(null=True, blank=True, default=50)
    scope = models.CharField(max_length=10, choices=Scope.choices, default=Scope.PROJECT)
    shareable = models.BooleanField(default=False)
    source_session_id = models.CharField(max_length=200, blank=True, default="")
    source_type = models.CharField(
        max_length=10, choices=SourceType.choices, default=SourceType.USER
    )
    seen_count = models.PositiveIntegerField(default=1)
    retrieval_count = models.PositiveIntegerField(default=0)
    first_seen_at = models.BigIntegerField()
    created_at = models.BigIntegerField()
    updated_at = models.BigIntegerField()
    last_seen_at = models.BigIntegerField()
    last_retrieved_at = models.BigIntegerField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.ACTIVE)
    expires_at = models.BigIntegerField(null=True, blank=True)
    verification_status = models.CharField(
        max_length=10, choices=Verification.choices, default=Verification.UNVERIFIED
    )
    verified_at = models.BigIntegerField(null=True, blank=True)
    classified_at = models.BigIntegerField(null=True, blank=True)
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="supersedes"
    )
    merged_from = models.JSONField(default=list, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    upstream_gone_at = models.BigIntegerField(null=True, blank=True)

    history = audited_history()

    class Meta:
        ordering = ["-updated_at", "-id"]
        verbose_name_plural = "memories"
        constraints = [
            models.UniqueConstraint(
                fields=["project", "category", "normalized_hash"],
                name="memory_unique_content_per_category",
                violation_error_message="An identical memory already exists in this category.",
            ),
            models.UniqueConstraint(
                fields=["project", "upstream_id"],
                condition=Q(upstream_id__isnull=False),
                name="memory_unique_upstream_id",
            ),
            models.CheckConstraint(
                condition=Q(importance__isnull=True) | Q(importance__gte=1, importance__lte=100),
                name="memory_importance_1_to_100",
                violation_error_message="Importance must be between 1 and 100.",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["active", "permanent", "archived"]),
                name="memory_status_known",
            ),
            models.CheckConstraint(condition=~Q(content=""), name="memory_content_not_empty"),
        ]
        indexes = [
            models.Index(fields=["project", "status", "category"]),
            models.Index(fields=["project", "status", "expires_at"]),
            # The memory list's orders: a page of the newest (in a project or not), or by
            # importance, is read from an index instead of sorting every row.
            models.Index(fields=["updated_at"], name="memory_updated"),
            models.Index(fields=["project", "updated_at"], name="memory_project_updated"),
            models.Index(fields=["importance"], name="memory_importance"),
        ]

    def __str__(self) -> str:
        text = self.content if len(self.content) <= 60 else self.content[:59] + "…"
        return f"#{self.display_id}: {text}"

    @property
    def display_id(self) -> int:
        """Return the id the agent sees: the upstream id for a synced memory, else ours."""
        return self.upstream_id if self.upstream_id is not None else self.pk


class MemorySize(models.Model):
    """A memory's size in the heuristic counter's tokens and its content's digest, kept by
    the database's triggers.

    Written by triggers on `Memory` (migrations 0004 and 0010), so every write path keeps
    it in step, the sync's bulk statements included; the header map sums these instead of
    reading the text of every memory. `content_digest` is
    `memadmin.core.hashing.content_digest64` of the content (NULL only for a row no trigger
    wrote since 0010, which cannot be): the ledger keys a line's stored token count by it.
    See `memadmin.memories.sizes`.
    """

    memory = models.OneToOneField(
        Memory,
        primary_key=True,
        on_delete=models.DO_NOTHING,
        db_constraint=False,  # the triggers remove the row with its memory
        related_name="size",
    )
    tokens = models.PositiveIntegerField()
    content_digest = models.BigIntegerField(null=True)

    def __str__(self) -> str:
        return f"memory {self.memory_id}: {self.tokens} tokens"

"""What memadmin remembers about the magic-context stores it syncs from.

A store is known by upstream's own `store_uuid` (from `context_store_meta`). Upstream ids
are unique within one store only, so each synced project is bound to the one store its
`Memory.upstream_id` values come from. Sessions are kept for their `system_prompt_hash`,
and every sync run leaves a summary, refused runs included.
"""

from django.db import models

from memadmin.core.contextdb.changes import StoreMarks
from memadmin.core.contextdb.records import problem_line


class UpstreamStore(models.Model):
    """One magic-context store (`context.db`), keyed by its `store_uuid`.

    A store without a `store_uuid` is keyed by `path:<resolved path>` instead.
    """

    store_uuid = models.CharField(max_length=1100, unique=True)
    path = models.CharField(max_length=1000, help_text="Where the store was last read.")
    schema_version = models.PositiveIntegerField(null=True, blank=True)
    migrations = models.PositiveIntegerField(default=0)
    first_synced_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")
    last_synced_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")

    class Meta:
        ordering = ["-last_synced_at", "-id"]

    def __str__(self) -> str:
        return f"{self.store_uuid} ({self.path})"


class UpstreamProject(models.Model):
    """The store a project's upstream ids belong to; a project syncs from one store only."""

    project = models.OneToOneField(
        "projects.Project", on_delete=models.CASCADE, related_name="upstream_link"
    )
    store = models.ForeignKey(UpstreamStore, on_delete=models.CASCADE, related_name="projects")
    linked_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")

    def __str__(self) -> str:
        return f"{self.project_id} <- {self.store_id}"


class UpstreamSession(models.Model):
    """One agent session of a store, as `session_meta` last showed it."""

    store = models.ForeignKey(UpstreamStore, on_delete=models.CASCADE, related_name="sessions")
    session_id = models.CharField(max_length=200)
    project_identity = models.CharField(max_length=200, blank=True, default="")
    project = models.ForeignKey(
        "projects.Project",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="upstream_sessions",
    )
    system_prompt_hash = models.CharField(max_length=200, blank=True, default="")
    memory_block_ids = models.JSONField(default=list, blank=True)
    updated_at = models.BigIntegerField(null=True, blank=True)
    seen_at = models.BigIntegerField(help_text="When a sync last read this session (ms).")

    class Meta:
        ordering = ["-updated_at", "session_id"]
        constraints = [
            models.UniqueConstraint(fields=["store", "session_id"], name="session_once_per_store"),
        ]

    def __str__(self) -> str:
        return self.session_id


class SyncRun(models.Model):
    """The summary of one sync from a store: what it found, or why it refused."""

    class Outcome(models.TextChoices):
        SYNCED = "synced"
        REFUSED = "refused"
        FAILED = "failed"

    store = models.ForeignKey(
        UpstreamStore, null=True, blank=True, on_delete=models.SET_NULL, related_name="runs"
    )
    path = models.CharField(max_length=1000)
    project_filter = models.CharField(max_length=200, blank=True, default="")
    outcome = models.CharField(max_length=10, choices=Outcome.choices)
    actor_label = models.CharField(max_length=150)
    started_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")
    duration_ms = models.PositiveIntegerField(default=0)
    new = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    unchanged = models.PositiveIntegerField(default=0)
    gone = models.PositiveIntegerField(default=0)
    flagged = models.PositiveIntegerField(default=0)
    pushed = models.PositiveIntegerField(default=0)
    conflicted = models.PositiveIntegerField(default=0)
    sessions = models.PositiveIntegerField(default=0)
    projects_created = models.JSONField(default=list, blank=True)
    by_project = models.JSONField(default=dict, blank=True)
    flagged_categories = models.JSONField(default=dict, blank=True)
    problem_count = models.PositiveIntegerField(default=0)
    problems = models.JSONField(default=list, blank=True, help_text="The first problems found.")
    warnings = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["-started_at", "-id"]

    def __str__(self) -> str:
        return f"{self.outcome} {self.path}"

    @property
    def problem_lines(self) -> list[str]:
        """Return the kept problems, each as the line the command prints."""
        return [_stored_line(problem) for problem in self.problems]

    @property
    def warning_lines(self) -> list[str]:
        """Return the kept warnings, each as the line the command prints."""
        return [_stored_line(warning) for warning in self.warnings]


def _stored_line(problem: dict) -> str:
    return problem_line(
        problem.get("table", ""), problem.get("row"), problem.get("column", ""), problem["problem"]
    )


class StoreWatermark(models.Model):
    """How far the incremental sync has read a store: the marks its next check reads above.

    ``row_count`` is how many rows the store had, ``max_id`` the highest memory id seen, ``changed_at`` the highest time a row's
    ``updated_at`` or ``last_seen_at`` held, ``log_id`` the last `memory_mutation_log` id.
    ``checked_at`` is when the store was last looked at, changed or not.
    """

    store = models.OneToOneField(
        UpstreamStore, primary_key=True, on_delete=models.CASCADE, related_name="watermark"
    )
    row_count = models.PositiveIntegerField(default=0)
    max_id = models.BigIntegerField(default=0)
    changed_at = models.BigIntegerField(default=0)
    log_id = models.BigIntegerField(default=0)
    workspaces = models.CharField(
        max_length=32, blank=True, default="", help_text="Digest of the workspace tables."
    )
    checked_at = models.BigIntegerField(null=True, blank=True)
    check_ms = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.store_id}: id {self.max_id}, time {self.changed_at}, log {self.log_id}"

    def marks(self) -> StoreMarks:
        """Return the marks as the store reader compares them."""
        return StoreMarks(
            self.row_count, self.max_id, self.changed_at, self.log_id, self.workspaces
        )

    def checked(self, at: int, took: int) -> None:
        """Note that the store was looked at, at ``at`` (ms), in ``took`` ms, and had not moved."""
        type(self).objects.filter(pk=self.pk).update(checked_at=at, check_ms=took)

    @classmethod
    def save_marks(cls, store: UpstreamStore, marks: StoreMarks, *, checked_at: int, took: int):
        """Keep the marks a sync of ``store`` read up to."""
        cls.objects.update_or_create(
            store=store,
            defaults={
                "row_count": marks.count,
                "max_id": marks.max_id,
                "changed_at": marks.changed_at,
                "log_id": marks.log_id,
                "workspaces": marks.workspaces,
                "checked_at": checked_at,
                "check_ms": min(took, 2**31 - 1),
            },
        )


class StoreBase(models.Model):
    """What the store held for a memory when memadmin last read or wrote its row: the base.

    ``digest`` is `memadmin.core.contextdb.writing.curated_digest` of the store row's curated
    values (text, category, status, importance, scope, shareable, expiry, metadata, project);
    "" for a memory the store does not hold yet. A sync compares the store's row and
    memadmin's with it, three ways: who changed since. ``pending_since`` is set while
    memadmin holds a change the store has not had yet (a team server without the file).
    """

    memory = models.OneToOneField(
        "memories.Memory", primary_key=True, on_delete=models.CASCADE, related_name="store_base"
    )
    digest = models.CharField(max_length=32, blank=True, default="")
    read_at = models.BigIntegerField(help_text="When the store's row was read or written (ms).")
    pending_since = models.BigIntegerField(
        null=True, blank=True, help_text="Since when memadmin holds a change not in the store (ms)."
    )

    class Meta:
        # Few rows are pending: each sync asks whether any is, without reading every base.
        indexes = [
            models.Index(
                fields=["pending_since"],
                name="interop_base_pending",
                condition=models.Q(pending_since__isnull=False),
            )
        ]

    def __str__(self) -> str:
        return f"{self.memory_id}: {self.digest or 'not in the store'}"


class SyncConflict(models.Model):
    """A memory both memadmin and the store changed since their base: neither was overwritten.

    ``store_values`` and ``memadmin_values`` are each side's curated values when the sync
    found it (``store_values`` also has the row's ``id`` and ``updated_at``). A curator
    resolves it (keep one side, or write a merged text); until then the sync leaves both.
    """

    memory = models.OneToOneField(
        "memories.Memory", on_delete=models.CASCADE, related_name="sync_conflict"
    )
    store = models.ForeignKey(UpstreamStore, on_delete=models.CASCADE, related_name="conflicts")
    store_values = models.JSONField()
    memadmin_values = models.JSONField()
    found_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")

    class Meta:
        ordering = ["-found_at", "-id"]

    def __str__(self) -> str:
        return f"conflict on {self.memory_id}"

"""What memadmin remembers about the magic-context stores it syncs from.

A store is known by upstream's own `store_uuid` (from `context_store_meta`). Upstream ids
are unique within one store only, so each synced project is bound to the one store its
`Memory.upstream_id` values come from. Sessions are kept for their `system_prompt_hash`,
and every sync run leaves a summary, refused runs included.
"""

from django.db import models


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
        "memories.Project", on_delete=models.CASCADE, related_name="upstream_link"
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
        "memories.Project",
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


class PendingCriteria(models.Model):
    """A synced project whose criteria changed on a server that cannot reach its store.

    The next sync on the machine with the file writes the project's criteria keys into the
    store's ``context_store_meta`` and drops this row.
    """

    project = models.OneToOneField(
        "memories.Project", on_delete=models.CASCADE, related_name="pending_criteria"
    )
    since = models.BigIntegerField(help_text="Milliseconds since the epoch.")

    def __str__(self) -> str:
        return f"criteria of {self.project_id} pending since {self.since}"

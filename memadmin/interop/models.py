"""What memadmin remembers about the magic-context stores it syncs from.

A store is known by upstream's own `store_uuid` (from `context_store_meta`). Upstream ids
are unique within one store only, so each synced project is bound to the one store its
`Memory.upstream_id` values come from. Sessions are kept for their `system_prompt_hash`,
and every sync run leaves a summary, refused runs included.
"""

from django.db import models
from simple_history.models import HistoricalRecords

from memadmin.audit.models import HistoryActorFields


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


class Workspace(models.Model):
    """One upstream workspace (`workspaces`): projects sharing memories of some categories.

    `share_categories_raw` is the column's text as the store holds it; `share_categories`
    the categories the plugin shares from it (empty when the value is not a JSON list of the
    five current names, and `problem` then says why). Versioned: a change upstream is a new
    version, written by the actor `import`.
    """

    store = models.ForeignKey(UpstreamStore, on_delete=models.CASCADE, related_name="workspaces")
    upstream_id = models.BigIntegerField()
    name = models.CharField(max_length=500)
    share_categories_raw = models.TextField(null=True, blank=True)
    share_categories = models.JSONField(default=list, blank=True)
    problem = models.TextField(blank=True, default="")
    created_at = models.BigIntegerField(null=True, blank=True)
    upstream_gone_at = models.BigIntegerField(null=True, blank=True)

    history = HistoricalRecords(bases=[HistoryActorFields])

    class Meta:
        ordering = ["store", "upstream_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["store", "upstream_id"], name="workspace_once_per_store"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class WorkspaceMember(models.Model):
    """One project of a workspace (`workspace_members`), with the name its memories carry.

    `project` is memadmin's project of that identity, None when memadmin has none (the
    store holds no memory of it); `problem` names what is wrong with the row, if anything.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="members")
    project_identity = models.CharField(max_length=200)
    project = models.ForeignKey(
        "memories.Project",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="workspace_memberships",
    )
    display_name = models.CharField(max_length=500, null=True, blank=True)
    display_path = models.CharField(max_length=1000, null=True, blank=True)
    added_at = models.BigIntegerField(null=True, blank=True)
    problem = models.TextField(blank=True, default="")

    history = HistoricalRecords(bases=[HistoryActorFields])

    class Meta:
        ordering = ["workspace", "display_name", "project_identity"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "project_identity"], name="workspace_member_once"
            ),
        ]

    def __str__(self) -> str:
        return self.display_name or self.project_identity


class SessionBlock(models.Model):
    """What one session was given, as `session_meta` recorded it: harness and block text.

    `project` comes from `session_meta.project_path` where the store has that column, else
    from `session_projects`; `block_text` is `memory_block_cache` ("" when not cached).
    """

    session = models.OneToOneField(UpstreamSession, on_delete=models.CASCADE, related_name="block")
    project = models.ForeignKey(
        "memories.Project",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="session_blocks",
    )
    harness = models.CharField(max_length=100, blank=True, default="")
    block_text = models.TextField(blank=True, default="")
    block_count = models.IntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.session.session_id} ({self.harness or 'unknown harness'})"


class UnreadValue(models.Model):
    """A value of a live upstream row that the plugin's reader rejects but memadmin keeps otherwise.

    The sync reads, say, a NULL `source_type` as `historian`; the stock plugin drops that row.
    Kept per store and upstream id, replaced at every sync (derived data, not versioned), and
    used by the ledger's plugin and pack modes (`LedgerMemory.unread`).
    """

    store = models.ForeignKey(UpstreamStore, on_delete=models.CASCADE, related_name="unread")
    upstream_id = models.BigIntegerField()
    project_identity = models.CharField(max_length=200)
    column = models.CharField(max_length=40)
    value = models.JSONField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["store", "upstream_id"], name="unread_once_per_row"),
        ]
        indexes = [models.Index(fields=["store", "project_identity"])]

    def __str__(self) -> str:
        return f"#{self.upstream_id} {self.column}={self.value!r}"

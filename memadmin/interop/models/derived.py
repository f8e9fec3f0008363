"""What the sync derives from a store's rows, or still owes it.

A session's block as `session_meta` recorded it (`SessionBlock`), the values of live rows the
plugin's reader rejects (`UnreadValue`), and criteria waiting for the machine with the store
(`PendingCriteria`).
"""

from django.db import models


class SessionBlock(models.Model):
    """What one session was given, as `session_meta` recorded it: harness and block text.

    `project` comes from `session_meta.project_path` where the store has that column, else
    from `session_projects`; `block_text` is `memory_block_cache` ("" when not cached).
    """

    session = models.OneToOneField(
        "interop.UpstreamSession", on_delete=models.CASCADE, related_name="block"
    )
    project = models.ForeignKey(
        "projects.Project",
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

    store = models.ForeignKey(
        "interop.UpstreamStore", on_delete=models.CASCADE, related_name="unread"
    )
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


class PendingCriteria(models.Model):
    """A synced project whose criteria changed on a server that cannot reach its store.

    The next sync on the machine with the file writes the project's criteria keys into the
    store's ``context_store_meta`` and drops this row.
    """

    project = models.OneToOneField(
        "projects.Project", on_delete=models.CASCADE, related_name="pending_criteria"
    )
    since = models.BigIntegerField(help_text="Milliseconds since the epoch.")

    def __str__(self) -> str:
        return f"criteria of {self.project_id} pending since {self.since}"

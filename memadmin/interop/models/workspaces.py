"""A store's workspaces and their members, as versioned memadmin rows."""

from django.db import models

from memadmin.audit.models import audited_history
from memadmin.core.contextdb.workspace_writing import workspace_digest

from .stores import UpstreamStore


class Workspace(models.Model):
    """One upstream workspace (`workspaces`): projects sharing memories of some categories.

    `share_categories_raw` is the column's text as the store holds it; `share_categories`
    the categories the plugin shares from it (empty when the value is not a JSON list of the
    five current names, and `problem` then says why). Versioned: a change upstream is a new
    version, written by the actor `import`; an edit in memadmin one by its editor
    (`workspaces.services`). ``pending_since`` is set while memadmin holds an edit the store
    has not had yet (``MEMADMIN_STORE_WRITES=pending``), and ``base_digest`` is then the
    store's workspace as last read (`workspace_digest`), which the push checks against.
    """

    store = models.ForeignKey(UpstreamStore, on_delete=models.CASCADE, related_name="workspaces")
    upstream_id = models.BigIntegerField()
    name = models.CharField(max_length=500)
    share_categories_raw = models.TextField(null=True, blank=True)
    share_categories = models.JSONField(default=list, blank=True)
    problem = models.TextField(blank=True, default="")
    created_at = models.BigIntegerField(null=True, blank=True)
    upstream_gone_at = models.BigIntegerField(null=True, blank=True)
    pending_since = models.BigIntegerField(null=True, blank=True)
    base_digest = models.CharField(max_length=32, blank=True, default="")

    history = audited_history()

    class Meta:
        ordering = ["store", "upstream_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["store", "upstream_id"], name="workspace_once_per_store"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def digest(self) -> str:
        """Return the digest of the shared categories and members: the edit form's version."""
        return workspace_digest(
            self.share_categories_raw,
            ((m.project_identity, m.display_name, m.display_path) for m in self.members.all()),
        )


class WorkspaceMember(models.Model):
    """One project of a workspace (`workspace_members`), with the name its memories carry.

    `project` is memadmin's project of that identity, None when memadmin has none (the
    store holds no memory of it); `problem` names what is wrong with the row, if anything.
    """

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="members")
    project_identity = models.CharField(max_length=200)
    project = models.ForeignKey(
        "projects.Project",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="workspace_memberships",
    )
    display_name = models.CharField(max_length=500, null=True, blank=True)
    display_path = models.CharField(max_length=1000, null=True, blank=True)
    added_at = models.BigIntegerField(null=True, blank=True)
    problem = models.TextField(blank=True, default="")

    history = audited_history()

    class Meta:
        ordering = ["workspace", "display_name", "project_identity"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "project_identity"], name="workspace_member_once"
            ),
        ]

    def __str__(self) -> str:
        return self.display_name or self.project_identity

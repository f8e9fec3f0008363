"""Policy blocks: packs, the closed category names they own, and each category's criteria.

A pack is a versioned file in packs/; installing it into a project writes one Category row per
name with the pack's criteria as `default_criteria`. People edit criteria as an override; the
effective criteria are the override if present, else the default. Names are never edited here.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q

from memadmin.audit.models import audited_history


class Pack(models.Model):
    """One version of a pack file, as it was installed."""

    name = models.CharField(max_length=80)
    version = models.CharField(max_length=40)
    description = models.TextField(blank=True, default="")
    routing_test = models.TextField(blank=True, default="")
    digest = models.CharField(max_length=64)
    spec = models.JSONField(help_text="The parsed pack file, as installed.")
    installed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-installed_at"]
        constraints = [
            models.UniqueConstraint(fields=["name", "digest"], name="pack_unique_name_digest"),
        ]

    def __str__(self) -> str:
        return f"{self.name} {self.version}"


class Category(models.Model):
    """A category of one project, owned by the project's pack: its rank and its criteria."""

    project = models.ForeignKey(
        "projects.Project", on_delete=models.CASCADE, related_name="categories"
    )
    name = models.CharField(max_length=40)
    priority = models.PositiveIntegerField()
    ttl_days = models.PositiveIntegerField(null=True, blank=True)
    legacy = models.BooleanField(default=False)
    maps_to = models.CharField(max_length=40, blank=True, default="")
    default_criteria = models.JSONField()
    override_criteria = models.JSONField(null=True, blank=True)
    default_moved = models.BooleanField(
        default=False,
        help_text="The pack's default changed under an existing override.",
    )
    previous_default = models.JSONField(null=True, blank=True)
    revision = models.PositiveIntegerField(default=1)

    history = audited_history()

    class Meta:
        ordering = ["project", "priority"]
        verbose_name_plural = "categories"
        constraints = [
            models.UniqueConstraint(fields=["project", "name"], name="category_unique_name"),
            models.CheckConstraint(
                condition=Q(legacy=False) | ~Q(maps_to=""), name="category_legacy_maps_somewhere"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_overridden(self) -> bool:
        """Return True if people have overridden the pack's criteria."""
        return self.override_criteria is not None

    @property
    def effective_criteria(self) -> dict:
        """Return the criteria in force: the override if present, else the pack default."""
        return (
            self.override_criteria if self.override_criteria is not None else self.default_criteria
        )


class SurfaceHashRecord(models.Model):
    """One value the project's prompt-surface hash took: the change that produced it, and who.

    A record is written only when the hash actually changes, so the rows read as the history
    of the text the agents are given.
    """

    project = models.ForeignKey(
        "projects.Project", on_delete=models.CASCADE, related_name="surface_hashes"
    )
    value = models.CharField(max_length=64)
    previous_value = models.CharField(max_length=64, blank=True, default="")
    change = models.CharField(max_length=300, help_text="What produced this value.")
    category = models.CharField(max_length=40, blank=True, default="")
    actor_label = models.CharField(max_length=150)
    actor_kind = models.CharField(max_length=10)
    actor_user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    audit_event = models.ForeignKey(
        "audit.AuditEvent", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["project", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.value[:12]} ({self.change})"

"""The structure assistant's runs: its suggestions for a large project, worked out by the
background worker (`tasks.structure_suggest`) with progress, and kept for the page to show."""

from django.db import models

from memadmin.projects.models import Project


class SuggestionRun(models.Model):
    """One working-out of a project's suggestions: its state, progress and result.

    `version` is the project's memories as they were (`run_services.project_version`): a run
    whose project changed since is shown as out of date. `result` holds the suggestions and
    their effect (`run_services.result_of`), with the primary key of every memory named.
    """

    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    project = models.ForeignKey(Project, on_delete=models.CASCADE, related_name="suggestion_runs")
    requested_by = models.CharField(max_length=150)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    phase = models.CharField(max_length=40, blank=True, default="")
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    queued_at = models.BigIntegerField(help_text="Milliseconds since the epoch.")
    started_at = models.BigIntegerField(null=True, blank=True)
    finished_at = models.BigIntegerField(null=True, blank=True)
    version = models.CharField(max_length=64, blank=True, default="")
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-pk"]

    def __str__(self) -> str:
        return f"suggestions for {self.project} ({self.state})"

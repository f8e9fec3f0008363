"""Run a project's analysis in the background, through Django's tasks framework.

The configured `TASKS` backend runs it (a worker with a database backend; Django's
`ImmediateBackend`, the default, runs it at once in the requesting process). A request
while a run for the same memories is queued or running asks for nothing more.
"""

import logging

from django.db import transaction
from django.tasks import task

from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError
from memadmin.projects.models import Project

from .analysis import analysis_refresh, project_fingerprint
from .embeddings import bound_store_path, embeddings_import
from .models import Analysis

STALE_REQUEST_MS = 15 * 60 * 1000  # a queued run this old is taken as lost and asked again
logger = logging.getLogger(__name__)


def embeddings_refresh(project: Project) -> list[str]:
    """Import the project's vectors from its bound store, if it has one; return any notice."""
    path = bound_store_path(project)
    if path is None or not path.exists():
        return []
    try:
        embeddings_import(project=project, path=path)
    except StoreError as error:
        return [f"Stored embeddings not read: {error}"]
    return []


@task
def analyse_project(project_id: int) -> None:
    """Read the project's stored vectors, compute its analysis and keep it."""
    project = Project.objects.get(pk=project_id)
    Analysis.objects.filter(project=project).update(state=Analysis.State.RUNNING)
    try:
        notices = embeddings_refresh(project)
        analysis = analysis_refresh(project)
    except Exception as error:
        logger.exception("curation analysis of project %s failed", project_id)
        Analysis.objects.filter(project=project).update(
            state=Analysis.State.FAILED, error=f"{type(error).__name__}: {error}"
        )
        raise
    if notices:
        analysis.notices = notices + analysis.notices
        analysis.save(update_fields=["notices"])


def analysis_request(project: Project, *, retry: bool = False) -> Analysis:
    """Return the project's analysis, asking for a new one when it is not current.

    Nothing is asked when the kept result matches the memories as they are, or when a run
    for them is already queued or running (unless that request is too old to trust), or
    failed (unless `retry`).
    """
    fingerprint = project_fingerprint(project)
    now = now_ms()
    with transaction.atomic():
        analysis, _ = Analysis.objects.select_for_update().get_or_create(
            project=project, defaults={"state": Analysis.State.DONE}
        )
        if analysis.state == Analysis.State.DONE and analysis.fingerprint == fingerprint:
            return analysis
        pending = analysis.state in (Analysis.State.QUEUED, Analysis.State.RUNNING)
        if analysis.state == Analysis.State.FAILED and not retry:
            pending = True
        if (
            pending
            and analysis.requested_fingerprint == fingerprint
            and now - (analysis.requested_at or 0) < STALE_REQUEST_MS
        ):
            return analysis
        analysis.state = Analysis.State.QUEUED
        analysis.requested_fingerprint = fingerprint
        analysis.requested_at = now
        analysis.save(update_fields=["state", "requested_fingerprint", "requested_at"])
    analyse_project.enqueue(project.pk)
    analysis.refresh_from_db()
    return analysis

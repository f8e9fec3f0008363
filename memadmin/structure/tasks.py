"""The structure assistant's background task (Django's tasks framework, queued in the
database; `manage.py run_worker`, started by `memadmin serve`, runs it)."""

from django.tasks import task

from .run_services import run_work


@task()
def structure_suggest(*, run_id: int) -> None:
    """Work out the queued SuggestionRun ``run_id``."""
    run_work(run_id=run_id)

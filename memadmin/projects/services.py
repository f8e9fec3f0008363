"""Write projects: create one under its upstream identity, rename it, change its budget."""

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.ledger import BUDGET_MAX, BUDGET_MIN
from memadmin.core.patterns import PROJECT_IDENTITY
from memadmin.core.project_names import short_identity

from .models import NAME_MAX_CHARS, Project

STORE_NAMING_REASON = "named from the store's workspace members (context.db sync)"


def validate_budget(budget: int) -> None:
    """Refuse an injection budget outside 500..20000."""
    if not isinstance(budget, int) or not BUDGET_MIN <= budget <= BUDGET_MAX:
        raise ValidationError(
            {"injection_budget": f"The budget must be between {BUDGET_MIN} and {BUDGET_MAX}."}
        )


def validate_identity(identity: str) -> None:
    """Refuse a project identity that is not upstream's `git:<sha>` or `dir:<hash>` form."""
    if not PROJECT_IDENTITY.fullmatch(identity):
        raise ValidationError(
            {"identity": "A project identity is 'git:<root-commit-sha>' or 'dir:<hash>'."}
        )


def clean_name(name: str) -> str:
    """Return the name stripped; refuse an empty one or one over 200 characters."""
    name = (name or "").strip()
    if not name:
        raise ValidationError({"name": "Write a name for the project."})
    if len(name) > NAME_MAX_CHARS:
        raise ValidationError(
            {"name": f"A project's name holds at most {NAME_MAX_CHARS} characters."}
        )
    return name


@transaction.atomic
def project_create(
    *,
    identity: str,
    name: str,
    actor,
    budget: int = 4000,
    name_source: str = Project.NameSource.USER,
) -> Project:
    """Create a project keyed by its upstream identity."""
    validate_identity(identity)
    validate_budget(budget)
    if Project.objects.filter(identity=identity).exists():
        raise ValidationError({"identity": f"A project {identity} already exists."})
    with acting(actor=actor):
        project = Project.objects.create(
            identity=identity, name=name, name_source=name_source, injection_budget=budget
        )
        audit_record(action="project_created", target=project, project=project)
    return project


@transaction.atomic
def project_set_budget(*, project: Project, budget: int, actor) -> Project:
    """Change a project's injection budget; the budget it has already writes nothing."""
    old = project.injection_budget
    if budget == old:
        return project
    validate_budget(budget)
    with acting(actor=actor):
        project.injection_budget = budget
        project.save(update_fields=["injection_budget"])
        audit_record(
            action="budget_changed",
            target=project,
            project=project,
            changes={"injection_budget": [old, budget]},
        )
    return project


@transaction.atomic
def project_rename(
    *, project: Project, name: str, actor, reason: str = "", expected_name: str | None = None
) -> Project:
    """Give a project the name a person chose; no sync renames it after that.

    Given `expected_name` (the name the page showed), refuse a project renamed since.
    The name it already has, already chosen, writes nothing.
    """
    name = clean_name(name)
    project = Project.objects.select_for_update().get(pk=project.pk)
    if expected_name is not None and project.name != expected_name:
        raise ValidationError(
            f"This project was renamed to “{project.name}” after the page was shown; "
            "nothing was changed. Read its name again and rename it if you still want to."
        )
    if name == project.name and project.name_source == Project.NameSource.USER:
        return project
    _rename(project, name, Project.NameSource.USER, actor=actor, reason=reason)
    return project


@transaction.atomic
def project_name_from_store(*, project: Project, store_name: str, actor) -> bool:
    """Name a project as the store does (its short identity when the store gives no name).

    A name a person chose is kept whatever the store says. Return True if the name changed.
    """
    project = Project.objects.select_for_update().get(pk=project.pk)
    if project.name_source == Project.NameSource.USER:
        return False
    store_name = store_name.strip()[:NAME_MAX_CHARS]
    if store_name:
        name, source = store_name, Project.NameSource.STORE
    else:
        name, source = short_identity(project.identity), Project.NameSource.IDENTITY
    if (name, source) == (project.name, project.name_source):
        return False
    _rename(project, name, source, actor=actor, reason=STORE_NAMING_REASON)
    return True


def _rename(project: Project, name: str, source: str, *, actor, reason: str) -> None:
    old = project.name
    with acting(actor=actor, reason=reason):
        project.name = name
        project.name_source = source
        project.save(update_fields=["name", "name_source"])
        audit_record(
            action="project_renamed",
            target=project,
            project=project,
            changes={"name": [old, name], "name_source": source},
            reason=reason,
        )

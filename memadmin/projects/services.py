"""Write projects: create one under its upstream identity, change its injection budget."""

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.ledger import BUDGET_MAX, BUDGET_MIN
from memadmin.core.patterns import PROJECT_IDENTITY

from .models import Project


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


@transaction.atomic
def project_create(*, identity: str, name: str, actor, budget: int = 4000) -> Project:
    """Create a project keyed by its upstream identity."""
    validate_identity(identity)
    validate_budget(budget)
    if Project.objects.filter(identity=identity).exists():
        raise ValidationError({"identity": f"A project {identity} already exists."})
    with acting(actor=actor):
        project = Project.objects.create(identity=identity, name=name, injection_budget=budget)
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

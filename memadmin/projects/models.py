"""A project of the store: what every memory, category, composite and sync belongs to.

Its table is still `memories_project` (the model moved here from `memories` with its data).
"""

from django.db import models
from django.db.models import Q

from memadmin.audit.models import audited_history
from memadmin.core.ledger import BUDGET_DEFAULT, BUDGET_MAX, BUDGET_MIN

NAME_MAX_CHARS = 200


class Project(models.Model):
    """One project of the store, keyed by upstream's identity string (`git:<sha>` / `dir:<hash>`).

    `name` is what every page shows; `name_source` says where it came from. A sync names a
    project from the store (`memadmin.core.project_names`) unless a person chose its name.
    """

    class NameSource(models.TextChoices):
        IDENTITY = "identity", "its identity, shortened"
        STORE = "store", "the store's workspace members"
        USER = "user", "chosen in memadmin"

    identity = models.CharField(max_length=200, unique=True)
    name = models.CharField(max_length=NAME_MAX_CHARS)
    name_source = models.CharField(
        max_length=10, choices=NameSource.choices, default=NameSource.USER
    )
    injection_budget = models.PositiveIntegerField(default=BUDGET_DEFAULT)
    pack = models.ForeignKey(
        "taxonomy.Pack", null=True, blank=True, on_delete=models.PROTECT, related_name="projects"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    history = audited_history(table_name="memories_historicalproject")

    class Meta:
        db_table = "memories_project"
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(injection_budget__gte=BUDGET_MIN, injection_budget__lte=BUDGET_MAX),
                name="project_budget_in_range",
                violation_error_message=(
                    f"The injection budget must be between {BUDGET_MIN} and {BUDGET_MAX} tokens."
                ),
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def named(self) -> bool:
        """Return True when the name is more than the identity shortened."""
        return self.name_source != self.NameSource.IDENTITY

"""The system check for memories in categories their project's pack does not define."""

import pytest
from django.core.checks import run_checks

from memadmin.memories.checks import memories_in_unknown_categories
from memadmin.memories.services import memory_create
from memadmin.taxonomy.models import Category

pytestmark = pytest.mark.django_db


def test_no_warning_when_every_category_is_defined(project):
    """Memories in the pack's own categories raise nothing."""
    memory_create(project=project, category="OPS_RULES", content="Rule.", actor="agent")
    assert memories_in_unknown_categories(None) == []


def test_memories_in_an_undefined_category_are_reported_per_project_and_category(project):
    """Each project and undefined category is one warning with its count."""
    for text in ("One.", "Two."):
        memory_create(project=project, category="INCIDENTS", content=text, actor="agent")
    Category.objects.filter(project=project, name="INCIDENTS").delete()
    warnings = memories_in_unknown_categories(None)
    assert [w.id for w in warnings] == ["memadmin.W001"]
    assert warnings[0].msg == (
        f"Project {project.identity} holds 2 memories in category INCIDENTS, "
        "which its pack does not define."
    )


def test_the_check_runs_with_django_checks(project):
    """`manage.py check` runs it under the memadmin tag."""
    memory_create(project=project, category="INCIDENTS", content="One.", actor="agent")
    Category.objects.filter(project=project, name="INCIDENTS").delete()
    assert "memadmin.W001" in [m.id for m in run_checks(tags=["memadmin"])]


def test_the_check_reads_the_data_only_when_asked(project):
    """It is a database check: `check --database default` runs it, plain `check` does not."""
    memory_create(project=project, category="INCIDENTS", content="One.", actor="agent")
    Category.objects.filter(project=project, name="INCIDENTS").delete()
    assert "memadmin.W001" not in [m.id for m in run_checks(include_deployment_checks=True)]
    assert "memadmin.W001" in [m.id for m in run_checks(databases=["default"])]

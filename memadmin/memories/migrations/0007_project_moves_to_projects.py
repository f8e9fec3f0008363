# The Project model moves from `memories` to `projects`; its tables keep their names
# (memories_project, memories_historicalproject), so only Django's state changes.

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("memories", "0006_memory_list_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.RemoveField(
                    model_name="historicalproject",
                    name="history_user",
                ),
                migrations.RemoveField(
                    model_name="historicalproject",
                    name="pack",
                ),
                migrations.RemoveConstraint(
                    model_name="project",
                    name="project_budget_in_range",
                ),
            ],
            database_operations=[],
        ),
    ]

# The Project model moves from `memories` to `projects`; its tables keep their names
# (memories_project, memories_historicalproject), so only Django's state changes.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0005_project_moves_to_projects"),
        ("composites", "0010_project_moves_to_projects"),
        ("curation", "0003_project_moves_to_projects"),
        ("interop", "0007_project_moves_to_projects"),
        ("memories", "0007_project_moves_to_projects"),
        ("projects", "0001_initial"),
        ("taxonomy", "0004_project_moves_to_projects"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="historicalmemory",
                    name="project",
                    field=models.ForeignKey(
                        blank=True,
                        db_constraint=False,
                        null=True,
                        on_delete=django.db.models.deletion.DO_NOTHING,
                        related_name="+",
                        to="projects.project",
                    ),
                ),
                migrations.AlterField(
                    model_name="memory",
                    name="project",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="memories",
                        to="projects.project",
                    ),
                ),
                migrations.DeleteModel(
                    name="HistoricalProject",
                ),
                migrations.DeleteModel(
                    name="Project",
                ),
            ],
            database_operations=[],
        ),
    ]

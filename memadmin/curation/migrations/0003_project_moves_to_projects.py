# The Project model moves from `memories` to `projects`; its tables keep their names
# (memories_project, memories_historicalproject), so only Django's state changes.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("curation", "0002_related_in_blocks"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="analysis",
                    name="project",
                    field=models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="curation_analysis",
                        to="projects.project",
                    ),
                ),
                migrations.AlterField(
                    model_name="relatedblock",
                    name="project",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="projects.project",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]

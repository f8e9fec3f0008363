# The Project model moves from `memories` to `projects`; its tables keep their names
# (memories_project, memories_historicalproject), so only Django's state changes.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("composites", "0009_change_id"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="composite",
                    name="project",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="composites",
                        to="projects.project",
                    ),
                ),
                migrations.AlterField(
                    model_name="historicalcomposite",
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
                    model_name="referenceset",
                    name="project",
                    field=models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="reference_sets",
                        to="projects.project",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]

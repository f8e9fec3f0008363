# The Project model moves from `memories` to `projects`; its tables keep their names
# (memories_project, memories_historicalproject), so only Django's state changes.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("interop", "0006_merge_pending_criteria"),
        ("projects", "0001_initial"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.AlterField(
                    model_name="historicalworkspacemember",
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
                    model_name="pendingcriteria",
                    name="project",
                    field=models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="pending_criteria",
                        to="projects.project",
                    ),
                ),
                migrations.AlterField(
                    model_name="sessionblock",
                    name="project",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="session_blocks",
                        to="projects.project",
                    ),
                ),
                migrations.AlterField(
                    model_name="upstreamproject",
                    name="project",
                    field=models.OneToOneField(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="upstream_link",
                        to="projects.project",
                    ),
                ),
                migrations.AlterField(
                    model_name="upstreamsession",
                    name="project",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="upstream_sessions",
                        to="projects.project",
                    ),
                ),
                migrations.AlterField(
                    model_name="workspacemember",
                    name="project",
                    field=models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="workspace_memberships",
                        to="projects.project",
                    ),
                ),
            ],
            database_operations=[],
        ),
    ]

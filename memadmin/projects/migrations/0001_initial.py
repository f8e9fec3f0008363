# The Project model moves from `memories` to `projects`; its tables keep their names
# (memories_project, memories_historicalproject), so only Django's state changes.

import django.db.models.deletion
import simple_history.models
from django.conf import settings
from django.db import migrations, models

import memadmin.audit.context


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("memories", "0006_memory_list_indexes"),
        ("taxonomy", "0003_change_id"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="HistoricalProject",
                    fields=[
                        (
                            "id",
                            models.BigIntegerField(
                                auto_created=True, blank=True, db_index=True, verbose_name="ID"
                            ),
                        ),
                        ("history_actor", models.CharField(blank=True, default="", max_length=150)),
                        (
                            "history_actor_kind",
                            models.CharField(blank=True, default="", max_length=10),
                        ),
                        (
                            "history_change_id",
                            models.UUIDField(
                                blank=True,
                                default=memadmin.audit.context.current_change_id,
                                editable=False,
                                null=True,
                            ),
                        ),
                        ("identity", models.CharField(db_index=True, max_length=200)),
                        ("name", models.CharField(max_length=200)),
                        ("injection_budget", models.PositiveIntegerField(default=4000)),
                        ("created_at", models.DateTimeField(blank=True, editable=False)),
                        ("history_id", models.AutoField(primary_key=True, serialize=False)),
                        ("history_date", models.DateTimeField(db_index=True)),
                        ("history_change_reason", models.TextField(null=True)),
                        (
                            "history_type",
                            models.CharField(
                                choices=[("+", "Created"), ("~", "Changed"), ("-", "Deleted")],
                                max_length=1,
                            ),
                        ),
                        (
                            "history_user",
                            models.ForeignKey(
                                null=True,
                                on_delete=django.db.models.deletion.SET_NULL,
                                related_name="+",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "pack",
                            models.ForeignKey(
                                blank=True,
                                db_constraint=False,
                                null=True,
                                on_delete=django.db.models.deletion.DO_NOTHING,
                                related_name="+",
                                to="taxonomy.pack",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name": "historical project",
                        "verbose_name_plural": "historical projects",
                        "db_table": "memories_historicalproject",
                        "ordering": ("-history_date", "-history_id"),
                        "get_latest_by": ("history_date", "history_id"),
                    },
                    bases=(simple_history.models.HistoricalChanges, models.Model),
                ),
                migrations.CreateModel(
                    name="Project",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("identity", models.CharField(max_length=200, unique=True)),
                        ("name", models.CharField(max_length=200)),
                        ("injection_budget", models.PositiveIntegerField(default=4000)),
                        ("created_at", models.DateTimeField(auto_now_add=True)),
                        (
                            "pack",
                            models.ForeignKey(
                                blank=True,
                                null=True,
                                on_delete=django.db.models.deletion.PROTECT,
                                related_name="projects",
                                to="taxonomy.pack",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "memories_project",
                        "ordering": ["name"],
                        "constraints": [
                            models.CheckConstraint(
                                condition=models.Q(
                                    ("injection_budget__gte", 500), ("injection_budget__lte", 20000)
                                ),
                                name="project_budget_in_range",
                                violation_error_message="The injection budget must be between 500 and 20000 tokens.",
                            )
                        ],
                    },
                ),
            ],
            database_operations=[],
        ),
    ]

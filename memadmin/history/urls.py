from django.urls import path

from memadmin.taxonomy import converters  # noqa: F401  (registers <category:...>)

from . import version_views, views

app_name = "audit"

urlpatterns = [
    path("", views.index, name="index"),
    path("export.csv", views.export_csv, name="export_csv"),
    path("export.json", views.export_json, name="export_json"),
    path("memories/<int:memory_pk>/", version_views.memory_history, name="memory_history"),
    path("memories/<int:memory_pk>/compare/", version_views.memory_compare, name="memory_compare"),
    path(
        "memories/<int:memory_pk>/revert/",
        version_views.memory_revert_view,
        name="memory_revert",
    ),
    path(
        "criteria/<int:project_pk>/<category:category>/",
        version_views.criteria_history,
        name="criteria_history",
    ),
    path(
        "criteria/<int:project_pk>/<category:category>/compare/",
        version_views.criteria_compare,
        name="criteria_compare",
    ),
    path(
        "criteria/<int:project_pk>/<category:category>/revert/",
        version_views.criteria_revert_view,
        name="criteria_revert",
    ),
]

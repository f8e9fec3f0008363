from django.urls import path

from . import (
    converters,  # noqa: F401  (registers <category:...>)
    facts_views,
    prompt_views,
    upgrade_views,
    views,
)

app_name = "taxonomy"

urlpatterns = [
    path("", views.index, name="index"),
    path("<int:project_pk>/prompts/<slug:site>/", prompt_views.prompt_preview, name="prompt"),
    path("<int:project_pk>/surface/", prompt_views.surface_hash_history, name="surface"),
    path("<int:project_pk>/facts/", facts_views.facts_checker, name="facts"),
    path("<int:project_pk>/pack/", upgrade_views.pack_page, name="pack"),
    path("<int:project_pk>/pack/apply/", upgrade_views.pack_apply, name="pack_apply"),
    path("<int:project_pk>/<category:name>/", views.category_detail, name="category"),
    path("<int:project_pk>/<category:name>/edit/", views.criteria_edit, name="edit"),
    path(
        "<int:project_pk>/<category:name>/field/<slug:field>/",
        views.field_save,
        name="field_save",
    ),
    path("<int:project_pk>/<category:name>/clear/", views.override_clear, name="clear"),
    path("<int:project_pk>/<category:name>/keep/", views.override_keep, name="keep"),
]

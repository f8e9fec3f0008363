from django.urls import path

from . import (
    converters,  # noqa: F401  (registers <category:...>)
    prompt_views,
    views,
)

# The overview, the pack page and the facts checker are served under this namespace too,
# from the memories (`memadmin/memories/criteria_urls.py`, joined in `memadmin/urls.py`).
app_name = "taxonomy"

urlpatterns = [
    path("<int:project_pk>/prompts/<slug:site>/", prompt_views.prompt_preview, name="prompt"),
    path("<int:project_pk>/surface/", prompt_views.surface_hash_history, name="surface"),
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

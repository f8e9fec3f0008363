from django.urls import path

from . import fragment_views, suggestion_views, views

app_name = "structure"

urlpatterns = [
    path("", views.index, name="index"),
    path("<int:project_pk>/", views.structure, name="page"),
    path("<int:project_pk>/suggestions/", suggestion_views.suggestions, name="suggestions"),
    path(
        "<int:project_pk>/suggestions/run/",
        suggestion_views.suggestions_run,
        name="suggestions_run",
    ),
    path(
        "<int:project_pk>/suggestions/apply/",
        suggestion_views.suggestions_apply,
        name="suggestions_apply",
    ),
    path("fragment/<int:memory_pk>/", fragment_views.fragment, name="fragment"),
]

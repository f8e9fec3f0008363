from django.urls import path

from . import action_views, views

app_name = "curation"

urlpatterns = [
    path("", views.index, name="index"),
    path("<int:project_pk>/duplicates/", views.duplicates, name="duplicates"),
    path("<int:project_pk>/refresh/", views.refresh, name="refresh"),
    path("<int:project_pk>/suggestions/", views.suggestions, name="suggestions"),
    path("<int:project_pk>/group/", action_views.group, name="group"),
    path("<int:project_pk>/health/", views.health, name="health"),
    path("memories/<int:memory_pk>/archive/", action_views.archive, name="archive"),
]

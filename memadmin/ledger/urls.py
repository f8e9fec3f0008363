from django.urls import path

from . import fragment_views, session_views, views

app_name = "ledger"

urlpatterns = [
    path("", views.index, name="index"),
    path("<int:project_pk>/", views.ledger, name="page"),
    path("<int:project_pk>/download/", views.download, name="download"),
    path("<int:project_pk>/sessions/", session_views.sessions, name="sessions"),
    path("fragment/<int:memory_pk>/", fragment_views.fragment, name="fragment"),
]

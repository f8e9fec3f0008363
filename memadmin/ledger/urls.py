from django.urls import path

from . import session_views, views

app_name = "ledger"

urlpatterns = [
    path("", views.index, name="index"),
    path("<int:project_pk>/", views.ledger, name="page"),
    path("<int:project_pk>/download/", views.download, name="download"),
    path("<int:project_pk>/sessions/", session_views.sessions, name="sessions"),
    # The fragment tool moved to the Structure pages; an old link or bookmark still finds it.
    path("fragment/<int:memory_pk>/", views.fragment_moved, name="fragment_moved"),
]

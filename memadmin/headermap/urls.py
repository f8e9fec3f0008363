from django.urls import path

from . import stale_views, views

app_name = "headermap"

urlpatterns = [
    path("", views.index, name="index"),
    path("node/<int:pk>/", views.node_details, name="details"),
    path("unreached/", views.unreached, name="unreached"),
    path("stale/", stale_views.stale_queue, name="stale"),
    path("stale/<int:header_pk>/synced/", stale_views.stale_mark_synced, name="stale_synced"),
    path("stale/<int:header_pk>/draft/", stale_views.stale_accept_draft, name="stale_draft"),
]

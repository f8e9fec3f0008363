from django.urls import path

from . import conflict_views, views

app_name = "interop"

urlpatterns = [
    path("", views.index, name="index"),
    path("stores/<int:pk>/sync/", views.store_sync, name="store_sync"),
    path(
        "conflicts/<int:pk>/resolve/",
        conflict_views.conflict_resolve_view,
        name="conflict_resolve",
    ),
]

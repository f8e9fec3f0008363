from django.urls import path

from . import composite_views, conflict_views, views, workspace_views

app_name = "interop"

urlpatterns = [
    path("", views.index, name="index"),
    path("stores/<int:pk>/sync/", views.store_sync, name="store_sync"),
    path(
        "stores/<int:pk>/composites/publish/",
        composite_views.store_composites_publish,
        name="store_composites_publish",
    ),
    path(
        "stores/<int:pk>/composites/unpublish/",
        composite_views.store_composites_unpublish,
        name="store_composites_unpublish",
    ),
    path(
        "stores/<int:pk>/composites/drop/",
        composite_views.store_composites_drop,
        name="store_composites_drop",
    ),
    path(
        "conflicts/<int:pk>/resolve/",
        conflict_views.conflict_resolve_view,
        name="conflict_resolve",
    ),
    path(
        "composite-conflicts/<int:composite_pk>/resolve/",
        conflict_views.composite_conflict_resolve_view,
        name="composite_conflict_resolve",
    ),
    path("projects/<int:project_pk>/proposals/", views.proposals, name="proposals"),
    path("workspaces/", workspace_views.workspaces, name="workspaces"),
    path("workspaces/<int:workspace_pk>/", workspace_views.workspace, name="workspace"),
    path(
        "workspaces/<int:workspace_pk>/edit/",
        workspace_views.workspace_edit,
        name="workspace_edit",
    ),
]

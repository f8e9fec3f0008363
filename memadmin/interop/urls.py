from django.urls import path

from .views import composites, conflicts, dreamer, index, workspaces

app_name = "interop"

urlpatterns = [
    path("", index.index, name="index"),
    path("stores/<int:pk>/sync/", index.store_sync, name="store_sync"),
    path("projects/<int:project_pk>/dreamer/", dreamer.dream_runs, name="dream_runs"),
    path(
        "stores/<int:pk>/composites/publish/",
        composites.store_composites_publish,
        name="store_composites_publish",
    ),
    path(
        "stores/<int:pk>/composites/unpublish/",
        composites.store_composites_unpublish,
        name="store_composites_unpublish",
    ),
    path(
        "stores/<int:pk>/composites/drop/",
        composites.store_composites_drop,
        name="store_composites_drop",
    ),
    path(
        "conflicts/<int:pk>/resolve/",
        conflicts.conflict_resolve_view,
        name="conflict_resolve",
    ),
    path(
        "composite-conflicts/<int:composite_pk>/resolve/",
        conflicts.composite_conflict_resolve_view,
        name="composite_conflict_resolve",
    ),
    path("projects/<int:project_pk>/proposals/", index.proposals, name="proposals"),
    path("workspaces/", workspaces.workspaces, name="workspaces"),
    path("workspaces/<int:workspace_pk>/", workspaces.workspace, name="workspace"),
    path(
        "workspaces/<int:workspace_pk>/edit/",
        workspaces.workspace_edit,
        name="workspace_edit",
    ),
]

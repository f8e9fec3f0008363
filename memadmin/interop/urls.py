from django.urls import path

from . import views, workspace_views

app_name = "interop"

urlpatterns = [
    path("", views.index, name="index"),
    path("stores/<int:pk>/sync/", views.store_sync, name="store_sync"),
    path("workspaces/", workspace_views.workspaces, name="workspaces"),
    path("workspaces/<int:workspace_pk>/", workspace_views.workspace, name="workspace"),
]

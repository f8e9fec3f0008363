from django.urls import path

from . import bulk_views, picker_views, views

app_name = "memories"

urlpatterns = [
    path("", views.memory_list, name="list"),
    path("new/", views.memory_create, name="create"),
    path("pick/", picker_views.memory_pick, name="pick"),
    path("<int:pk>/", views.memory_detail, name="detail"),
    path("<int:pk>/edit/", views.memory_edit, name="edit"),
    path("bulk/", bulk_views.bulk, name="bulk"),
    path("bulk/actions/", bulk_views.bulk_actions, name="bulk_actions"),
    path("merge/", bulk_views.merge, name="merge"),
    path("<int:pk>/unmerge/", bulk_views.unmerge, name="unmerge"),
]

from django.urls import path

from . import edit_views, picker_views, reference_views, views

app_name = "composites"

urlpatterns = [
    path("", views.composite_list, name="index"),
    path("new/", views.composite_new, name="create"),
    path("pick/", picker_views.composite_pick, name="pick"),
    path("<int:pk>/", views.composite_detail, name="detail"),
    path("<int:pk>/delete/", views.composite_remove, name="delete"),
    path("<int:pk>/members/", edit_views.member_add, name="member_add"),
    path(
        "<int:pk>/members/<int:member_pk>/remove/", edit_views.member_remove, name="member_remove"
    ),
    path("<int:pk>/members/<int:member_pk>/move/", edit_views.member_move, name="member_move"),
    path("<int:pk>/type/", edit_views.type_change, name="type"),
    path("<int:pk>/title/", edit_views.title_change, name="title"),
    path("<int:pk>/cursor/", edit_views.cursor_move, name="cursor"),
    path("<int:pk>/freeze/", reference_views.freeze, name="freeze"),
    path("snapshots/<slug:ref>/", reference_views.snapshot_detail, name="snapshot"),
    path("snapshots/<slug:ref>.json", reference_views.snapshot_export, name="snapshot_export"),
]

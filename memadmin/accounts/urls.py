from django.urls import path

from . import theme_views, views

app_name = "accounts"

urlpatterns = [
    path("", views.people, name="people"),
    path("new/", views.person_create, name="create"),
    path("<int:user_pk>/role/", views.person_role, name="role"),
    path("theme/", theme_views.theme_set, name="theme"),
]

from django.urls import path

from . import views

app_name = "accounts"

urlpatterns = [
    path("", views.people, name="people"),
    path("new/", views.person_create, name="create"),
    path("<int:user_pk>/role/", views.person_role, name="role"),
]

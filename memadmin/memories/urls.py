from django.urls import path

from . import views

app_name = "memories"

urlpatterns = [
    path("", views.memory_list, name="list"),
    path("new/", views.memory_create, name="create"),
    path("<int:pk>/", views.memory_detail, name="detail"),
    path("<int:pk>/edit/", views.memory_edit, name="edit"),
]

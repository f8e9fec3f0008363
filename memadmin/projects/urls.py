from django.urls import path

from . import views

app_name = "projects"

urlpatterns = [
    path("<int:project_pk>/", views.project_detail, name="detail"),
    path("<int:project_pk>/rename/", views.project_rename_view, name="rename"),
]

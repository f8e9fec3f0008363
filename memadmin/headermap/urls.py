from django.urls import path

from . import views

app_name = "headermap"

urlpatterns = [
    path("", views.index, name="index"),
    path("node/<int:pk>/", views.node_details, name="details"),
]

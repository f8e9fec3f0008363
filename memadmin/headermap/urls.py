from django.urls import path

from . import views

app_name = "headermap"

urlpatterns = [
    path("", views.index, name="index"),
]

from django.urls import path

from . import views

app_name = "interop"

urlpatterns = [
    path("", views.index, name="index"),
]

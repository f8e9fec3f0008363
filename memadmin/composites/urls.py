from django.urls import path

from . import views

app_name = "composites"

urlpatterns = [
    path("", views.index, name="index"),
]

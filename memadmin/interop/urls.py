from django.urls import path

from . import views

app_name = "interop"

urlpatterns = [
    path("", views.index, name="index"),
    path("stores/<int:pk>/sync/", views.store_sync, name="store_sync"),
]

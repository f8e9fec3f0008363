from django.urls import path

from . import undo_views

app_name = "overview"

urlpatterns = [
    path("<uuid:change_id>/", undo_views.undo, name="undo"),
]

from django.urls import path

from . import views

app_name = "ledger"

urlpatterns = [
    path("", views.index, name="index"),
    path("<int:project_pk>/", views.ledger, name="page"),
    path("<int:project_pk>/download/", views.download, name="download"),
]

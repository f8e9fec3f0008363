from django.urls import path

from . import fragment_views, views

app_name = "structure"

urlpatterns = [
    path("", views.index, name="index"),
    path("<int:project_pk>/", views.structure, name="page"),
    path("fragment/<int:memory_pk>/", fragment_views.fragment, name="fragment"),
]

from django.urls import path

from . import bulk_views, picker_views, views

# The bulk actions and merges (`bulk`, `merge`, `unmerge`) are served under this namespace
# too, from curation (`memadmin/curation/memory_urls.py`, joined in `memadmin/urls.py`).
app_name = "memories"

urlpatterns = [
    path("", views.memory_list, name="list"),
    path("new/", views.memory_create, name="create"),
    path("pick/", picker_views.memory_pick, name="pick"),
    path("<int:pk>/", views.memory_detail, name="detail"),
    path("<int:pk>/edit/", views.memory_edit, name="edit"),
    path("bulk/actions/", bulk_views.bulk_actions, name="bulk_actions"),
]

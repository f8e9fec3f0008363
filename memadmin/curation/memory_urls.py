"""The memory pages that write composites too: the bulk bar's actions and merges.

Served under the memories' namespace and addresses (`memories:bulk`, `/memories/merge/`):
`memadmin/urls.py` joins them to the memories app's own pages.
"""

from django.urls import path

from . import bulk_views

urlpatterns = [
    path("bulk/", bulk_views.bulk, name="bulk"),
    path("merge/", bulk_views.merge, name="merge"),
    path("<int:pk>/unmerge/", bulk_views.unmerge, name="unmerge"),
]

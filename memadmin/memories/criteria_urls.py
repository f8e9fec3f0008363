"""The criteria area's pages that count, move or write memories, at the criteria's addresses.

`memadmin/urls.py` joins them to the taxonomy's own under the `taxonomy:` names: the overview
(with each category's memory count), the pack page (an upgrade moves memories) and the facts
checker (it writes the accepted facts as memories).
"""

from django.urls import path

from . import category_views, facts_views, pack_upgrade_views

urlpatterns = [
    path("", category_views.index, name="index"),
    path("<int:project_pk>/facts/", facts_views.facts_checker, name="facts"),
    path("<int:project_pk>/pack/", pack_upgrade_views.pack_page, name="pack"),
    path("<int:project_pk>/pack/apply/", pack_upgrade_views.pack_apply, name="pack_apply"),
]

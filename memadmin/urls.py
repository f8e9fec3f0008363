"""URL map: one include per area of the dashboard."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from memadmin.overview.views import overview

urlpatterns = [
    path("", overview, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("memories/", include("memadmin.memories.urls")),
    path("criteria/", include("memadmin.taxonomy.urls")),
    path("composites/", include("memadmin.composites.urls")),
    path("map/", include("memadmin.headermap.urls")),
    path("ledger/", include("memadmin.ledger.urls")),
    path("structure/", include("memadmin.structure.urls")),
    path("history/", include("memadmin.history.urls")),
    path("people/", include("memadmin.accounts.urls")),
    path("projects/", include("memadmin.projects.urls")),
    path("interop/", include("memadmin.interop.urls")),
    path("curation/", include("memadmin.curation.urls")),
    path("undo/", include("memadmin.overview.urls")),
    path("admin/", admin.site.urls),
]

handler403 = "memadmin.overview.error_views.permission_denied"
handler404 = "memadmin.overview.error_views.page_not_found"
handler500 = "memadmin.overview.error_views.server_error"

"""URL map: one include per area of the dashboard."""

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from memadmin.curation import memory_urls as curation_memory_urls
from memadmin.memories import criteria_urls as memory_criteria_urls
from memadmin.memories import urls as memory_urls
from memadmin.overview.views import overview
from memadmin.taxonomy import urls as taxonomy_urls

# An area's pages that need an app above its own live in that app and keep the area's
# addresses and names: the higher app's URLs are joined to the area's here (the apps'
# layers: docs/architecture.md).
# The memory pages: the memories app's own, then the bulk actions and merges, which write
# composites too and so are curation's.
memory_pages = ([*memory_urls.urlpatterns, *curation_memory_urls.urlpatterns], memory_urls.app_name)
# The criteria pages: the memories' that count, move or write memories (the overview, the
# pack page, the facts checker), then the taxonomy's own.
criteria_pages = (
    [*memory_criteria_urls.urlpatterns, *taxonomy_urls.urlpatterns],
    taxonomy_urls.app_name,
)

urlpatterns = [
    path("", overview, name="home"),
    path("login/", auth_views.LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("memories/", include(memory_pages)),
    path("criteria/", include(criteria_pages)),
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

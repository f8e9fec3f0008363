"""The header map page: a collapsible tree whose details load only when a node is opened.

With htmx, opening a node fetches its details (`node_details`) once. Without JavaScript,
each node's "show" link reloads the page with that node in `?open=`, so every opened node
along the way is rendered expanded on the server.
"""

from dataclasses import dataclass
from itertools import groupby
from urllib.parse import urlencode

from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.htmx_request import HtmxHttpRequest
from memadmin.memories.forms import ProjectChoiceForm
from memadmin.memories.models import Project

from .selectors import header_map
from .stale_selectors import stale_header_ids
from .tree import HeaderMap, MapNode

MAX_OPEN = 200


@dataclass
class TreeItem:
    """A node as drawn: where it sits (`path`, ids from the root to it) and its details.

    `details` is None until the node is opened; `repeated` marks a node already drawn
    above it on its own path (a ring of headers), which is not opened again.
    """

    node: MapNode
    path: tuple[int, ...]
    details: list["TreeItem"] | None
    repeated: bool
    open_url: str
    details_url: str
    stale: bool = False


_PK_SLOT = 987654321  # stands for a node's pk in its details URL, reversed once per map


class _Urls:
    """Build the links of one project's map, keeping the nodes already open.

    A map draws thousands of nodes, each with two links: the URLs are reversed once here
    and filled in per node (all ids are whole numbers, so the query needs no quoting).
    """

    def __init__(self, project: Project, open_ids: set[int], stale_ids: set[int] = frozenset()):
        self.project = project
        self.open_ids = open_ids
        self.stale_ids = stale_ids
        self._index = f"{reverse('headermap:index')}?project={project.pk}"
        self._details = reverse("headermap:details", args=[_PK_SLOT]).split(str(_PK_SLOT))

    def page(self, open_ids) -> str:
        return self._index + "".join(f"&open={i}" for i in sorted(open_ids))

    def details(self, path: tuple[int, ...]) -> str:
        before, after = self._details
        dotted = ".".join(map(str, path))
        return f"{before}{path[-1]}{after}?project={self.project.pk}&path={dotted}"


def _items(
    tree: HeaderMap, nodes: list[MapNode], parent: tuple[int, ...], urls: _Urls
) -> list[TreeItem]:
    items = []
    for node in nodes:
        path = (*parent, node.id)
        repeated = node.id in parent
        opened = node.id in urls.open_ids and node.has_details and not repeated
        items.append(
            TreeItem(
                node=node,
                path=path,
                details=_items(tree, tree.details(node.id), path, urls) if opened else None,
                repeated=repeated,
                open_url=urls.page(urls.open_ids | set(path)),
                details_url=urls.details(path),
                stale=node.id in urls.stale_ids,
            )
        )
    return items


def _project(request: HtmxHttpRequest) -> Project:
    wanted = request.GET.get("project", "")
    projects = Project.objects.order_by("name")
    project = projects.filter(pk=wanted).first() if wanted.isdigit() else projects.first()
    if project is None:
        raise Http404("No such project." if wanted else "There is no project yet.")
    return project


def _ids(values: list[str]) -> list[int]:
    return [int(value) for value in values if value.isdigit()][:MAX_OPEN]


@require_GET
@role_required("viewer")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """Show the project's map: top headers, the nodes opened in `?open=`, unreached memories."""
    project = _project(request)
    tree = header_map(project)
    urls = _Urls(project, set(_ids(request.GET.getlist("open"))), set(stale_header_ids(project)))
    unreached = tree.unreached()
    groups = [
        (category, list(memories))
        for category, memories in groupby(
            sorted(unreached, key=lambda m: (m.category, m.id)), key=lambda m: m.category
        )
    ]
    return render(
        request,
        "headermap/index.html",
        {
            "project": project,
            "project_form": ProjectChoiceForm(initial={"project": project.pk}),
            "items": _items(tree, tree.roots(), (), urls),
            "summary": tree.summary(),
            "unreached_groups": [
                (category, memories, sum(m.tokens for m in memories))
                for category, memories in groups
            ],
        },
    )


@require_GET
@role_required("viewer")
def node_details(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Return one node's details as a list fragment; without htmx, the page with it open."""
    project = _project(request)
    path = tuple(_ids(request.GET.get("path", "").split("."))) or (pk,)
    if path[-1] != pk:
        path = (*path, pk)
    if not request.htmx:
        query = [("project", project.pk)] + [("open", i) for i in path]
        anchor = "map-node-" + "-".join(map(str, path))
        return redirect(f"{reverse('headermap:index')}?{urlencode(query)}#{anchor}")
    tree = header_map(project)
    if pk not in tree.memories:
        raise Http404("That memory is not live in this project.")
    urls = _Urls(project, set(path))
    items = _items(
        tree, tree.details(pk), path, _Urls(project, set(), set(stale_header_ids(project)))
    )
    for item in items:
        item.open_url = urls.page(set(item.path))
    return render(request, "headermap/index.html#details", {"items": items})

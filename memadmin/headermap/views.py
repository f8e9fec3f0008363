"""The header map page: a page of top headers whose details load only when a node is opened.

The roots come a page at a time (`?page=`); the summary counts the whole map. With htmx,
the page links swap the tree section only, opening a node fetches its details
(`node_details`) once, and opening a category of memories no header reaches fetches its
list (`unreached`). Without JavaScript, each "show" link reloads the page with that node
in `?open=` or that category in `?unreached=`, so what is open is rendered on the server;
every link keeps the page of roots, the open nodes and the category shown.

The page reads the whole map; the two fragments read the map's graph by ids and the text
of what they show only (`header_map_below`, `unreached_memories`), and draw it the same.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from django.core.paginator import InvalidPage, Page, Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.text import slugify
from django.views.decorators.http import require_GET

from memadmin.accounts.roles import role_required
from memadmin.core.numbers import ids_in, parse_id, parse_page, parse_whole
from memadmin.memories.forms import ProjectChoiceForm
from memadmin.projects.models import Project
from memadmin.web.addresses import QueryValue, address
from memadmin.web.htmx_request import HtmxHttpRequest, wants_fragment
from memadmin.web.pagination import Pager, pager

from .selectors import header_map, header_map_below, unreached_memories
from .stale_selectors import stale_header_ids
from .tree import HeaderMap, MapMemory, MapNode, UnreachedGroup

MAX_OPEN = 200
ROOTS_PER_PAGE = 100
UNREACHED_PER_PAGE = 50


@dataclass(frozen=True)
class MapPlace:
    """Where a reader is on one project's map, as the page's address says.

    `page` is the page of roots shown, `open_ids` the nodes drawn open, `unreached` the
    category whose memories no header reaches are listed, at page `unreached_page`. The
    map page and the list fragment of a category take the same query.
    """

    project_id: int
    page: int = 1
    open_ids: frozenset[int] = frozenset()
    unreached: str = ""
    unreached_page: int = 1

    @cached_property
    def shown_params(self) -> dict[str, int | str | None]:
        """Return the query parameters of what is shown besides the project and open nodes.

        The page of roots, the category listed and its list page; a first page is left out.
        """
        listed = bool(self.unreached)
        return {
            "page": self.page if self.page != 1 else None,
            "unreached": self.unreached or None,
            "unreached_page": self.unreached_page if listed and self.unreached_page != 1 else None,
        }

    def params(self, open_ids: Iterable[int] | None = None) -> dict[str, QueryValue]:
        """Return the query parameters of this place, or of it with other nodes open."""
        shown = self.shown_params
        return {
            "project": self.project_id,
            "page": shown["page"],
            "open": sorted(self.open_ids if open_ids is None else open_ids),
            "unreached": shown["unreached"],
            "unreached_page": shown["unreached_page"],
        }

    def url(self, view: str = "headermap:index", *, anchor: str = "", **changes) -> str:
        """Return the address of `view` (the map page) at this place, with `changes` made."""
        place = replace(self, **changes) if changes else self
        return address(reverse(view), place.params(), anchor=anchor)


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


@dataclass(frozen=True)
class UnreachedList:
    """One page of a category's memories no header reaches, with its links.

    Each page link of `pager` has two addresses: the map page with that list page shown
    (without JavaScript) and the list alone (htmx).
    """

    category: str
    page: Page
    pager: Pager | None = None
    memory_list_url: str = ""


@dataclass(frozen=True)
class UnreachedGroupRow:
    """A category's summary line among the memories no header reaches, with its links.

    `shown` is its list when the address names it; `show_url` is the map page with its
    list shown, `fragment_url` the list alone (htmx).
    """

    group: UnreachedGroup
    anchor: str
    shown: UnreachedList | None
    show_url: str
    fragment_url: str


class _Urls:
    """Build the node links of one project's map, keeping the place the reader is at.

    A map draws hundreds of nodes, each with two links: a node's details URL is reversed
    once per node id and its query built by `address`.
    """

    def __init__(self, place: MapPlace, stale_ids: set[int] = frozenset()):
        self.place = place
        self.open_ids = place.open_ids
        self.stale_ids = stale_ids
        self._index = reverse("headermap:index")
        self._details: dict[int, str] = {}

    def page(self, open_ids) -> str:
        """Return the map page's address with these nodes open."""
        return address(self._index, self.place.params(open_ids))

    def details(self, path: tuple[int, ...]) -> str:
        """Return the address of a node's details, reached by `path`."""
        pk = path[-1]
        details = self._details.get(pk)
        if details is None:
            details = self._details[pk] = reverse("headermap:details", args=[pk])
        reached = {"project": self.place.project_id, "path": ".".join(map(str, path))}
        return address(details, reached, self.place.shown_params)


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
    pk = parse_id(wanted)
    project = projects.filter(pk=pk).first() if pk is not None else projects.first()
    if project is None:
        raise Http404("No such project." if wanted else "There is no project yet.")
    return project


def _ids(values: list[str]) -> list[int]:
    return ids_in(values)[:MAX_OPEN]


def _place(request: HtmxHttpRequest, project: Project, open_ids: Iterable[int]) -> MapPlace:
    return MapPlace(
        project_id=project.pk,
        page=parse_page(request.GET.get("page")),
        open_ids=frozenset(open_ids),
        unreached=request.GET.get("unreached", ""),
        unreached_page=parse_page(request.GET.get("unreached_page")),
    )


def unreached_anchor(category: str) -> str:
    """Return the id of a category's row among the memories no header reaches."""
    return f"map-unreached-{slugify(category)}"


def _unreached_list(memories: Sequence[MapMemory], place: MapPlace) -> UnreachedList:
    """Return the list page of `place` (the last if past it) of its category's `memories`."""
    page = Paginator(memories, UNREACHED_PER_PAGE).get_page(place.unreached_page)
    anchor = unreached_anchor(place.unreached)
    return UnreachedList(
        category=place.unreached,
        page=page,
        pager=pager(
            page,
            lambda number: place.url(unreached_page=number, anchor=anchor),
            fragment=lambda number: place.url("headermap:unreached", unreached_page=number),
            label=f"Pages of {place.unreached} memories no header reaches",
            current=f"{page.start_index()}\N{EN DASH}{page.end_index()} of {page.paginator.count}",
            target="closest .map-unreached-list",
            swap="innerHTML",
            push_url=False,
        ),
        memory_list_url=address(
            reverse("memories:list"), project=place.project_id, category=place.unreached
        ),
    )


def _unreached_rows(
    tree: HeaderMap, groups: list[UnreachedGroup], place: MapPlace
) -> list[UnreachedGroupRow]:
    rows = []
    for group in groups:
        at = replace(place, unreached=group.category, unreached_page=1)
        anchor = unreached_anchor(group.category)
        rows.append(
            UnreachedGroupRow(
                group=group,
                anchor=anchor,
                shown=(
                    _unreached_list(tree.unreached(place.unreached), place)
                    if group.category == place.unreached
                    else None
                ),
                show_url=at.url(anchor=anchor),
                fragment_url=at.url("headermap:unreached"),
            )
        )
    return rows


@require_GET
@role_required("viewer")
def index(request: HtmxHttpRequest) -> HttpResponse:
    """Show a page of the map's top headers, the nodes opened in `?open=`, and the summary.

    Memories no header reaches are summed up by category; the list of the category in
    `?unreached=` is shown. A page of roots past the last answers 404, the page saying
    so. An htmx request (a page link) gets the tree section only.
    """
    project = _project(request)
    tree = header_map(project)
    place = _place(request, project, _ids(request.GET.getlist("open")))
    groups = tree.unreached_groups()
    if place.unreached not in {group.category for group in groups}:
        place = replace(place, unreached="", unreached_page=1)
    paginator = Paginator(tree.root_ids(), ROOTS_PER_PAGE)
    wanted = request.GET.get("page") or "1"
    try:
        page = paginator.page(parse_whole(wanted, minimum=1) or 0)
    except InvalidPage:
        page, place = None, replace(place, page=1)
    missing = page is None
    urls = _Urls(place, set(stale_header_ids(project)))
    shown = [] if missing else list(page.object_list)
    # The texts of what is drawn, in one query: the page's roots and the open nodes' details.
    tree.read_texts([*shown, *(i for o in place.open_ids for i in tree.graph.details.get(o, ()))])
    roots = [tree.node(memory_id) for memory_id in shown]
    context = {
        "project": project,
        "items": _items(tree, roots, (), urls),
        "page": page,
        "missing_page": wanted if missing else None,
        "page_urls": {"first": place.url(page=1), "last": place.url(page=paginator.num_pages)},
        "root_pager": pager(
            page,
            lambda number: place.url(page=number),
            label="Pages of top headers",
            ends=True,
            target="#map-tree",
            swap="innerHTML show:top",
        ),
        "root_count": paginator.count,
        "page_count": paginator.num_pages,
    }
    template_name = "headermap/index.html"
    if wants_fragment(request):
        template_name += "#tree-section"
    else:
        context |= {
            "project_form": ProjectChoiceForm(initial={"project": project.pk}),
            "summary": tree.summary(),
            "unreached_groups": _unreached_rows(tree, groups, place),
            "unreached_per_page": UNREACHED_PER_PAGE,
        }
    return render(request, template_name, context, status=404 if missing else 200)


@require_GET
@role_required("viewer")
def unreached(request: HtmxHttpRequest) -> HttpResponse:
    """Return a page of one category's memories no header reaches, as a list fragment.

    It takes the map page's query (`unreached` names the category); without htmx it
    sends the reader to the map page with that list shown.
    """
    project = _project(request)
    place = _place(request, project, _ids(request.GET.getlist("open")))
    if not place.unreached:
        raise Http404("Name the category to list: ?unreached=<category>.")
    if not request.htmx:
        return redirect(place.url(anchor=unreached_anchor(place.unreached)))
    shown = _unreached_list(unreached_memories(project, place.unreached), place)
    return render(request, "headermap/index.html#unreached-list", {"unreached": shown})


@require_GET
@role_required("viewer")
def node_details(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Return one node's details as a list fragment; without htmx, the page with it open.

    Both keep the page of roots and the category shown that the query names.
    """
    project = _project(request)
    path = tuple(_ids(request.GET.get("path", "").split("."))) or (pk,)
    if path[-1] != pk:
        path = (*path, pk)
    place = _place(request, project, path)
    if not request.htmx:
        anchor = "map-node-" + "-".join(map(str, path))
        return redirect(place.url(anchor=anchor))
    tree = header_map_below(project, pk)  # the text of what the details show, no more
    if tree is None:
        raise Http404("That memory is not live in this project.")
    urls = _Urls(place)
    closed = _Urls(replace(place, open_ids=frozenset()), set(stale_header_ids(project)))
    items = _items(tree, tree.details(pk), path, closed)
    for item in items:
        item.open_url = urls.page(set(item.path))
    return render(request, "headermap/index.html#details", {"items": items})

"""The memory list as a django-tables2 table."""

from functools import cached_property

import django_tables2 as tables
from django.http import QueryDict
from django.urls import reverse
from django.utils.html import format_html

from memadmin.core.clock import ms_to_datetime
from memadmin.projects.store import store_backend
from memadmin.web.pagination import Pager, pager, query_pages

from .models import Memory

MAX_PER_PAGE = 500


class SelectColumn(tables.Column):
    """A checkbox per row, tied by its `form` attribute to the list's bulk form."""

    def __init__(self, **kwargs):
        super().__init__(accessor="pk", orderable=False, verbose_name="Select", **kwargs)

    @property
    def header(self):
        # Ticks every row shown (select_all.js); without scripts it is hidden, rows are ticked
        # one by one.
        label = "Select every memory shown"
        return format_html(
            '<input type="checkbox" class="js-only select-all" aria-label="{}" title="{}">',
            label,
            label,
        )

    def render(self, value, record):
        return format_html(
            '<input type="checkbox" name="ids" value="{}" form="bulk-form" '
            'aria-label="Select #{}">',
            value,
            record.display_id,
        )


class MemoryTable(tables.Table):
    select = SelectColumn(attrs={"td": {"class": "select"}, "th": {"class": "select"}})
    id = tables.Column(verbose_name="#", attrs={"td": {"class": "num"}})
    project = tables.Column(
        accessor="project__name", order_by=("project__name",), verbose_name="Project"
    )
    category = tables.Column()
    content = tables.Column()
    importance = tables.Column(attrs={"td": {"class": "num"}})
    # The text's length in characters (the selector's `characters`): sorted longest first,
    # the long memories worth fragmenting come to the top.
    length = tables.Column(
        accessor="characters",
        order_by=("characters",),
        verbose_name="Length",
        attrs={"td": {"class": "num"}, "th": {"class": "num"}},
    )
    status = tables.Column()
    updated_at = tables.Column(verbose_name="Updated")

    class Meta:
        model = Memory
        fields = (
            "select",
            "id",
            "project",
            "category",
            "content",
            "importance",
            "length",
            "status",
            "updated_at",
        )
        attrs = {"class": "data-table"}
        empty_text = "No memory matches these filters."
        order_by = ("-updated_at",)
        # django-tables2's table with the one pager (includes/pagination.html) below it.
        template_name = "memories/table.html"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Under 700 px each row is a card: a cell names its column (the stylesheet shows it).
        for bound in self.columns:
            bound.column.attrs = {
                **bound.column.attrs,
                "td": {**bound.column.attrs.get("td", {}), "data-label": bound.verbose_name},
            }

    def paginate(self, *args, per_page=None, **kwargs):
        """Paginate with the query's `per_page` where it is 1 to MAX_PER_PAGE, else the default.

        django-tables2 passes any integer the query holds; a negative one fails the paginator.
        """
        if per_page is not None and not 1 <= per_page <= MAX_PER_PAGE:
            per_page = None
        return super().paginate(*args, per_page=per_page, **kwargs)

    @cached_property
    def pager(self) -> Pager | None:
        """Return the list's numbered pages, each link keeping the filters, sort and size."""
        request = getattr(self, "request", None)
        if request is None:
            return None
        return pager(
            getattr(self, "page", None),
            query_pages(request.GET, request.path, field=self.prefixed_page_field),
            label="Pages of memories",
            numbers=True,
        )

    def render_id(self, record: Memory):
        # Out of the Tab order: the text's link beside it goes to the same page, so a row is
        # two stops (its checkbox, its text), not three.
        return format_html(
            '<a href="{}" tabindex="-1">{}</a>',
            reverse("memories:detail", args=[record.pk]),
            record.display_id,
        )

    def render_content(self, value: str, record: Memory):
        text = value if len(value) <= 140 else value[:139] + "…"
        return format_html(
            '<a href="{}">{}</a>', reverse("memories:detail", args=[record.pk]), text
        )

    def render_status(self, value: str, record: Memory):
        badge = format_html('<span class="badge status-{}">{}</span>', value, value)
        if record.pk in self._pending():
            badge += format_html(
                ' <span class="badge pending" title="{}">pending</span>',
                "Changed here; not in its store yet (the next sync pushes it)",
            )
        return badge

    def _pending(self) -> set[int]:
        """Return which memories of the page hold changes not in their store (one query)."""
        if not hasattr(self, "_pending_cache"):
            self._pending_cache = store_backend().pending_memory_ids(
                [row.record.pk for row in self.paginated_rows]
            )
        return self._pending_cache

    def render_updated_at(self, value: int):
        moment = ms_to_datetime(value)
        return format_html(
            '<time datetime="{}">{}</time>', moment.isoformat(), moment.strftime("%Y-%m-%d %H:%M")
        )


def without_unknown_sort(query: QueryDict, table: tables.Table) -> QueryDict:
    """Return the query without its `sort` if that names anything but the table's sortable
    columns (each maybe with a leading "-", comma-separated).

    django-tables2 ignores an unknown column, but reads it as a dotted path first (`?sort=1.5`),
    which it deprecates; an unknown sort here simply lists in the default order.
    """
    field = table.prefixed_order_by_field
    sortable = {column.name for column in table.columns if column.orderable}
    asked = [
        name.strip().lstrip("-") for value in query.getlist(field) for name in value.split(",")
    ]
    if all(name in sortable for name in asked):
        return query
    kept = query.copy()
    del kept[field]
    return kept

"""The projects and memadmin rows a sync touches, read for the planner."""

import json
from collections.abc import Iterable

from django.db import connection
from django.db.models import Q

from memadmin.core.packs import PackSpec
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import category_names

from ..models import StoreBase, UpstreamProject
from .values import FIELDS

# Above this many ids a query names them by chunks (SQLite takes at most 32,766 parameters).
IDS_PER_QUERY = 10_000


def plan_bases(projects: Iterable[Project]) -> dict[int, str]:
    """Return the base digest of every memory of the projects that has one."""
    return dict(
        StoreBase.objects.filter(memory__project__in=list(projects))
        .order_by()
        .values_list("memory_id", "digest")
    )


class Scope:
    """The projects a sync touches: those of the store's rows in scope and those bound to it."""

    def __init__(self, projects: dict[str, Project], identities_in_store: set[str], store_pks):
        self.projects = projects
        self.identities_in_store = identities_in_store
        self.store_project_pks = store_pks

    @classmethod
    def of(cls, store, memories, project: str) -> "Scope":
        return cls.of_identities(store, {m.project_path for m in memories}, project)

    @classmethod
    def of_identities(cls, store, identities: set[str], project: str) -> "Scope":
        """Return the scope of the store's rows of ``identities`` (``project`` alone if set)."""
        bound = {}
        if store is not None:
            bound = dict(
                UpstreamProject.objects.filter(store=store).values_list(
                    "project__identity", "project_id"
                )
            )
        wanted = identities | ({project} if project else set(bound))
        projects = {
            p.identity: p
            for p in Project.objects.filter(identity__in=wanted).select_related(
                "upstream_link__store"
            )
        }
        return cls(projects, identities, set(bound.values()))

    def is_bound(self, identity: str) -> bool:
        """Return True when the project is already synced from this store."""
        project = self.projects.get(identity)
        return project is not None and project.pk in self.store_project_pks

    def identities(self) -> set[str]:
        """Return every project identity in scope, created or not."""
        return self.identities_in_store | set(self.projects)

    def conflicts(self, store_key: str) -> list[str]:
        """Return a message for each project already bound to another store."""
        messages = []
        for identity, project in sorted(self.projects.items()):
            link = getattr(project, "upstream_link", None)
            if link is not None and link.store.store_uuid != store_key:
                messages.append(
                    f"project {identity} is synced from another store ({link.store.store_uuid} "
                    f"at {link.store.path}); upstream ids of two stores cannot be mixed"
                )
        return messages

    def existing_rows(self, upstream_ids: frozenset[int] | None = None) -> list[tuple]:
        """Return memadmin's rows of the projects in scope, as the planner reads them.

        With ``upstream_ids`` (an incremental sync) only those rows are read, with the rows
        an upstream row may take over: memadmin's own and those gone from the store.
        The query is the ORM's own; its rows are decoded here rather than by the ORM's
        per-value converters, which cost more than the query for a large store.
        """
        if not self.projects:
            return []
        if upstream_ids is None:
            return self._rows(Q())
        ids = sorted(upstream_ids)
        rows = self._rows(Q(upstream_id__isnull=True) | Q(upstream_gone_at__isnull=False))
        for start in range(0, len(ids), IDS_PER_QUERY):
            rows += self._rows(
                Q(upstream_id__in=ids[start : start + IDS_PER_QUERY], upstream_gone_at__isnull=True)
            )
        return rows

    def kept_rows(self, store_ids, upstream_of_pk: dict[int, int]) -> list[tuple]:
        """Return the rows of the projects in scope that no row in the store links to.

        Memadmin's own rows, the rows marked gone and those whose store row is gone now,
        read whole for a plan by ranges (`planning.ranges`); ``store_ids`` holds the store's ids.
        """
        if not self.projects:
            return []
        rows = self._rows(Q(upstream_id__isnull=True) | Q(upstream_gone_at__isnull=False))
        gone = sorted(pk for pk, upstream in upstream_of_pk.items() if upstream not in store_ids)
        for start in range(0, len(gone), IDS_PER_QUERY):
            rows += self._rows(
                Q(pk__in=gone[start : start + IDS_PER_QUERY], upstream_gone_at__isnull=True)
            )
        return rows

    def linked_rows(self, first: int, last: int, store_ids) -> list[tuple]:
        """Return the rows in scope linked to the store's rows ``first`` to ``last`` (not gone)."""
        if not self.projects:
            return []
        rows = self._rows(
            Q(upstream_id__gte=first, upstream_id__lte=last, upstream_gone_at__isnull=True)
        )
        return [row for row in rows if row[1] in store_ids]

    def bases_of(self, rows: list[tuple]) -> dict[int, str]:
        """Return the base digest of each of these rows (as `existing_rows` returns them) with one."""
        pks = [row[0] for row in rows]
        bases = {}
        for start in range(0, len(pks), IDS_PER_QUERY):
            bases.update(
                StoreBase.objects.filter(memory_id__in=pks[start : start + IDS_PER_QUERY])
                .order_by()
                .values_list("memory_id", "digest")
            )
        return bases

    def _rows(self, condition: Q) -> list[tuple]:
        rows = (
            Memory.objects.filter(condition, project__in=self.projects.values())
            .order_by()
            .values_list(
                "pk",
                "upstream_id",
                "project__identity",
                *FIELDS,
                "superseded_by_id",
                "merged_from",
            )
        )
        sql, params = rows.query.get_compiler(using=rows.db).as_sql()
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return [_decoded(row) for row in cursor.fetchall()]

    def upstream_of_pk(self) -> dict[int, int]:
        """Return the upstream id of every synced row of the store's projects, by primary key."""
        project_pks = self.store_project_pks | {p.pk for p in self.projects.values()}
        if not project_pks:
            return {}
        rows = (
            Memory.objects.filter(project_id__in=project_pks, upstream_id__isnull=False)
            .order_by()
            .values_list("pk", "upstream_id")
        )
        # Two integers a row, without the ORM's per-row iteration; taken into the dict row by
        # row, as a list of every row first would double the memory (100 MB at 450,000).
        sql, params = rows.query.get_compiler(using=rows.db).as_sql()
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return dict(cursor)

    def categories(self, spec: PackSpec | None) -> dict[str, frozenset[str]]:
        """Return each identity's category names: its pack's, or the new pack's when new."""
        names = {identity: frozenset(category_names(p)) for identity, p in self.projects.items()}
        for identity in self.identities_in_store - names.keys():
            names[identity] = frozenset(spec.names()) if spec else frozenset()
        return names

    def session_filter(self, project: str) -> set[str] | None:
        """Return the identities whose sessions are synced, or None for all of them."""
        return {project} if project else None


_SHAREABLE = 3 + FIELDS.index("shareable")
_METADATA = 3 + FIELDS.index("metadata")


def _json(value: object) -> object:
    """Return a JSON column's value decoded (the database may have decoded it already)."""
    if not isinstance(value, str):
        return value
    if value == "[]":
        return []
    if value == "{}":
        return {}
    return json.loads(value)


def _decoded(row: tuple) -> tuple:
    """Return an existing row with its flag as a bool and its JSON columns decoded."""
    values = list(row)
    values[_SHAREABLE] = bool(values[_SHAREABLE])
    values[_METADATA] = _json(values[_METADATA])
    values[-1] = _json(values[-1])
    return tuple(values)

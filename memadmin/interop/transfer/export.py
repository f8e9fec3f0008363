"""Export a project as one JSON document: memories, composites, criteria overrides, reference sets.

The format ("memadmin.project", version 1) is documented in docs/store-protocol.md ("Project
export format"). Rows refer to each other by export keys (1, 2, ... in primary-key order), never
by this database's primary keys, and the JSON is written with sorted keys and fixed
indentation: exporting, importing into an empty database and exporting again gives the
same bytes.

What is not exported: the history of each row, the audit trail, sync bookkeeping (header
syncs and the composites' membership stamps: an import makes its composites afresh), and
references that leave the project (a `superseded_by` or `merged_from` naming a memory of
another project, or one deleted since).
"""

import json

from memadmin.composites.models import Composite, CompositeMember, ReferenceSet
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import categories_of

from ..planning.values import FIELDS

FORMAT = "memadmin.project"
VERSION = 1

# Memory fields exported as they are, in the order the format lists them: the upstream id,
# then the fields a sync mirrors.
MEMORY_FIELDS = ("upstream_id", *FIELDS)
REFERENCE_SET_FIELDS = (
    "ref",
    "composite_type",
    "title",
    "cursor",
    "frozen_at",
    "frozen_by",
    "note",
)


def project_export_data(project: Project) -> dict:
    """Return the project as the export format's plain data."""
    memories = list(
        Memory.objects.filter(project=project)
        .order_by("pk")
        .values("pk", *MEMORY_FIELDS, "superseded_by_id", "merged_from")
    )
    key_of = {memory["pk"]: key for key, memory in enumerate(memories, start=1)}
    composites = list(Composite.objects.filter(project=project).order_by("pk"))
    composite_key = {composite.pk: key for key, composite in enumerate(composites, start=1)}
    pack = project.pack
    return {
        "format": FORMAT,
        "version": VERSION,
        "project": {
            "identity": project.identity,
            "name": project.name,
            "injection_budget": project.injection_budget,
            "pack": None
            if pack is None
            else {"name": pack.name, "version": pack.version, "digest": pack.digest},
        },
        "criteria_overrides": _overrides(project),
        "memories": [_memory(key, memory, key_of) for key, memory in enumerate(memories, 1)],
        "composites": _composites(composites, key_of),
        "reference_sets": _reference_sets(project, key_of, composite_key),
    }


def project_export(project: Project) -> bytes:
    """Return the project's export document as UTF-8 JSON bytes."""
    text = json.dumps(project_export_data(project), ensure_ascii=False, indent=2, sort_keys=True)
    return (text + "\n").encode("utf-8")


def _overrides(project: Project) -> list[dict]:
    """Return the categories people changed: an override, or a pack default that moved."""
    return [
        {
            "category": category.name,
            "override_criteria": category.override_criteria,
            "default_moved": category.default_moved,
            "previous_default": category.previous_default,
        }
        for category in categories_of(project)
        if category.override_criteria is not None or category.default_moved
    ]


def _memory(key: int, memory: dict, key_of: dict[int, int]) -> dict:
    exported = {"key": key, **{name: memory[name] for name in MEMORY_FIELDS}}
    exported["superseded_by"] = key_of.get(memory["superseded_by_id"])
    exported["merged_from"] = [
        key_of[pk] for pk in memory["merged_from"] or [] if isinstance(pk, int) and pk in key_of
    ]
    return exported


def _composites(composites: list[Composite], key_of: dict[int, int]) -> list[dict]:
    members: dict[int, list[int]] = {composite.pk: [] for composite in composites}
    rows = (
        CompositeMember.objects.filter(composite__in=composites)
        .order_by("composite_id", "position")
        .values_list("composite_id", "member_id")
    )
    for composite_id, member_id in rows:
        members[composite_id].append(key_of[member_id])
    return [
        {
            "key": key,
            "type": composite.type,
            "title": composite.title,
            "head": key_of[composite.head_id],
            "cursor": composite.cursor,
            "members": members[composite.pk],
        }
        for key, composite in enumerate(composites, start=1)
    ]


def _reference_sets(project: Project, key_of: dict, composite_key: dict) -> list[dict]:
    return [
        {
            **{name: getattr(reference_set, name) for name in REFERENCE_SET_FIELDS},
            "composite": composite_key.get(reference_set.composite_id),
            "items": [
                {
                    "memory": key_of.get(item.get("id")),
                    "display_id": item.get("display_id"),
                    "role": item.get("role"),
                    "digest": item.get("digest"),
                }
                for item in reference_set.items
            ],
        }
        for reference_set in ReferenceSet.objects.filter(project=project).order_by("pk")
    ]

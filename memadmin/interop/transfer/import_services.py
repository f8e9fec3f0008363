"""Import a project export document: check everything, then write it all in one transaction.

The document is checked whole first (`transfer.checks`), then against this database (the
project must be new here, its pack file must exist and hold every category an override
names, every reference-set name must be free). Any problem refuses the import with every
problem listed, and nothing is written. The writes then run with actor "import": the
project and its pack, the criteria overrides, the memories (on the sync's bulk path, one
history version each), the composites and members, the reference sets, one audit event.

Rows are written in document order, so their primary keys ascend as the export keys do
and a new export of the imported project gives the same bytes.
"""

import json

from django.core.exceptions import ValidationError
from django.db import transaction
from simple_history.utils import bulk_create_with_history

from memadmin.audit.actors import as_actor
from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.composites.models import Composite, CompositeMember, ReferenceSet
from memadmin.core.packs import PackError, PackNotFoundError, PackSpec
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.projects.services import project_create
from memadmin.taxonomy.models import Category
from memadmin.taxonomy.services import (
    criteria_validate,
    pack_install,
    pack_load,
    surface_hash_note,
)

from ..writing.bulk_rows import history_insert, reserve_pks, rows_insert
from .checks import Problems, check_document
from .export import MEMORY_FIELDS, REFERENCE_SET_FIELDS

REASON = "imported from a project export"


class ImportRefused(ValidationError):
    """The document cannot be imported as it is; nothing was written."""

    def __init__(self, problems: list[str]):
        super().__init__(problems, code="import_refused")


def parse_document(raw: bytes | str) -> object:
    """Return the parsed JSON of an export, or raise ImportRefused saying where it breaks."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            raise ImportRefused([f"document: is not UTF-8 text ({error.reason})"]) from error
    try:
        return json.loads(raw)
    except json.JSONDecodeError as error:
        raise ImportRefused(
            [f"document: is not JSON ({error.msg} at line {error.lineno}, column {error.colno})"]
        ) from error


def _pack(document: dict, problems: Problems) -> PackSpec | None:
    """Return the pack the document names, loaded from the packs directory, or None."""
    named = document["project"].get("pack")
    if not named:
        return None
    try:
        return pack_load(named["name"])
    except (PackError, PackNotFoundError) as error:
        problems.add("project.pack.name", str(error))
        return None


def _check_database(document: dict, spec: PackSpec | None, problems: Problems) -> dict:
    """Record what this database forbids; return each override's criteria as stored."""
    identity = document["project"]["identity"]
    if Project.objects.filter(identity=identity).exists():
        problems.add("project.identity", f"a project {identity} already exists in this database")
    refs = [item["ref"] for item in document["reference_sets"]]
    for ref in ReferenceSet.objects.filter(ref__in=refs).values_list("ref", flat=True):
        problems.add("reference_sets", f"a reference set {ref!r} already exists in this database")
    names = set(spec.names()) if spec else set()
    stored = {}
    for index, override in enumerate(document["criteria_overrides"]):
        path = f"criteria_overrides[{index}]"
        if override["category"] not in names:
            problems.add(f"{path}.category", f"{override['category']!r} is not in the pack")
        if override["override_criteria"] is not None:
            try:
                stored[override["category"]] = criteria_validate(override["override_criteria"])
            except ValidationError as error:
                problems.add(f"{path}.override_criteria", "; ".join(error.messages))
    return stored


def project_import(*, raw: bytes | str, actor="import") -> Project:
    """Import the export document ``raw`` as a new project; return it.

    Raise ImportRefused, having written nothing, with every problem found.
    """
    document = parse_document(raw)
    problems = check_document(document)
    if problems:
        raise ImportRefused(problems)
    spec = _pack(document, problems)
    criteria = _check_database(document, spec, problems)
    if problems:
        raise ImportRefused(problems)
    actor = as_actor(actor)
    with transaction.atomic(), acting(actor=actor, reason=REASON):
        project = _project(document, spec, actor)
        _overrides(project, document["criteria_overrides"], criteria)
        pk_of = _memories(project, document["memories"], actor)
        composite_pk_of = _composites(project, document["composites"], pk_of, actor)
        _reference_sets(project, document["reference_sets"], pk_of, composite_pk_of)
        audit_record(
            action="project_imported",
            target=project,
            project=project,
            changes={
                "memories": len(document["memories"]),
                "composites": len(document["composites"]),
                "reference_sets": len(document["reference_sets"]),
                "criteria_overrides": len(document["criteria_overrides"]),
            },
        )
    return project


def _project(document: dict, spec: PackSpec | None, actor) -> Project:
    fields = document["project"]
    project = project_create(
        identity=fields["identity"],
        name=fields["name"],
        budget=fields["injection_budget"],
        actor=actor,
    )
    if spec is not None:
        pack_install(project=project, spec=spec, actor=actor, reason=REASON)
        project.refresh_from_db()
    return project


def _overrides(project: Project, overrides: list[dict], criteria: dict) -> None:
    """Put back each category's override and moved-default flag, as exported."""
    if not overrides:
        return
    categories = {category.name: category for category in Category.objects.filter(project=project)}
    for override in overrides:
        category = categories[override["category"]]
        category.override_criteria = criteria.get(category.name)
        category.default_moved = override["default_moved"]
        category.previous_default = override["previous_default"]
        category.save()
        audit_record(
            action="criteria_imported",
            target=category,
            project=project,
            category=category.name,
            changes={"override": category.override_criteria is not None},
        )
    surface_hash_note(project=project, change="criteria overrides imported")


def _memories(project: Project, memories: list[dict], actor) -> dict[int, int]:
    """Write the memories in document order with one history version each; return pks by key."""
    pks = reserve_pks(Memory, len(memories))
    pk_of = {memory["key"]: pk for memory, pk in zip(memories, pks, strict=True)}
    rows = []
    for memory, pk in zip(memories, pks, strict=True):
        row = {name: memory[name] for name in MEMORY_FIELDS}
        row["id"] = pk
        row["project_id"] = project.pk
        row["superseded_by_id"] = pk_of.get(memory["superseded_by"])
        row["merged_from"] = [pk_of[key] for key in memory["merged_from"]]
        rows.append(row)
    rows_insert(Memory, rows)
    history_insert(Memory, rows, actor=actor, history_type="+", reason=REASON)
    return pk_of


def _composites(project: Project, composites: list[dict], pk_of: dict, actor) -> dict[int, int]:
    """Write the composites and their members in order; return composite pks by key."""
    history = {"history_actor": actor.label, "history_actor_kind": actor.kind}
    created = bulk_create_with_history(
        [
            Composite(
                project=project,
                type=composite["type"],
                title=composite["title"],
                head_id=pk_of[composite["head"]],
                cursor=composite["cursor"],
            )
            for composite in composites
        ],
        Composite,
        default_change_reason=REASON,
        custom_historical_attrs=history,
    )
    row_of = {composite["key"]: row for composite, row in zip(composites, created, strict=True)}
    bulk_create_with_history(
        [
            CompositeMember(
                composite_id=row_of[composite["key"]].pk,
                member_id=pk_of[member],
                position=position,
                # The members joined when their composite was made here, by the import.
                joined_at=row_of[composite["key"]].made_at,
            )
            for composite in composites
            for position, member in enumerate(composite["members"])
        ],
        CompositeMember,
        default_change_reason=REASON,
        custom_historical_attrs=history,
    )
    return {key: row.pk for key, row in row_of.items()}


def _reference_sets(
    project: Project, reference_sets: list[dict], pk_of: dict, composite_pk_of: dict
) -> None:
    ReferenceSet.objects.bulk_create(
        ReferenceSet(
            project=project,
            composite_id=composite_pk_of.get(reference_set["composite"]),
            items=[
                {
                    "id": pk_of.get(item["memory"]),
                    "display_id": item["display_id"],
                    "role": item["role"],
                    "digest": item["digest"],
                }
                for item in reference_set["items"]
            ],
            **{name: reference_set[name] for name in REFERENCE_SET_FIELDS},
        )
        for reference_set in reference_sets
    )

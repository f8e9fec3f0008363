"""Write a project's effective criteria and prompt-surface hash into a magic-context store.

The one table written is upstream's generic key/value table `context_store_meta`, under
keys in memadmin's own namespace, after a backup copy of the store, in one transaction
(`memadmin.core.contextdb.write_store_meta`). The keys, one per category and one for the
hash, are documented in docs/store-protocol.md ("Criteria in the store"):

    memadmin.criteria.v1.<project identity>.<CATEGORY>   -> JSON, format "memadmin.criteria"
    memadmin.surface_hash.v1.<project identity>          -> JSON, format "memadmin.surface_hash"

Each value is compact JSON with sorted keys and no timestamp, so exporting unchanged
criteria again writes the same bytes.
"""

import json
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.contextdb import StoreError, write_store_meta
from memadmin.core.contextdb.opening import DEFAULT_TIMEOUT_SECONDS
from memadmin.projects.models import Project
from memadmin.taxonomy.selectors import categories_of, current_surface_hash

CRITERIA_FORMAT = "memadmin.criteria"
SURFACE_FORMAT = "memadmin.surface_hash"
FORMAT_VERSION = 1
CRITERIA_PREFIX = f"memadmin.criteria.v{FORMAT_VERSION}."
SURFACE_PREFIX = f"memadmin.surface_hash.v{FORMAT_VERSION}."


@dataclass(frozen=True)
class CriteriaExport:
    """What an export wrote: the keys, the surface hash and where the backup copy is."""

    keys: list[str]
    surface_hash: str
    backup_path: Path


def criteria_key(identity: str, category: str) -> str:
    """Return the store key holding one category's criteria."""
    return f"{CRITERIA_PREFIX}{identity}.{category}"


def surface_key(identity: str) -> str:
    """Return the store key holding a project's prompt-surface hash."""
    return f"{SURFACE_PREFIX}{identity}"


def _encoded(value: dict) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def criteria_entries(project: Project) -> dict[str, str]:
    """Return the keys and JSON values an export writes for the project, in key order.

    Raise ValidationError when the project has no pack, so no criteria.
    """
    if project.pack_id is None:
        raise ValidationError(f"{project.identity} has no pack installed: it has no criteria.")
    pack = {"name": project.pack.name, "version": project.pack.version}
    categories = list(categories_of(project))
    surface = current_surface_hash(project)
    entries = {}
    for category in categories:
        entries[criteria_key(project.identity, category.name)] = _encoded(
            {
                "format": CRITERIA_FORMAT,
                "version": FORMAT_VERSION,
                "project": project.identity,
                "category": category.name,
                "priority": category.priority,
                "legacy": category.legacy,
                "maps_to": category.maps_to or None,
                "ttl_days": category.ttl_days,
                "source": "override" if category.is_overridden else "pack",
                "revision": category.revision,
                "pack": pack,
                "criteria": category.effective_criteria,
            }
        )
    entries[surface_key(project.identity)] = _encoded(
        {
            "format": SURFACE_FORMAT,
            "version": FORMAT_VERSION,
            "project": project.identity,
            "surface_hash": surface,
            "pack": pack,
            "categories": [category.name for category in categories],
        }
    )
    return dict(sorted(entries.items()))


def default_backup_dir() -> Path:
    """Return where backup copies of stores go unless told otherwise."""
    return Path(settings.VAR_DIR) / "context-db-backups"


def criteria_export(
    *,
    path: str | Path,
    project: Project,
    actor="import",
    backup_dir: str | Path | None = None,
    reason: str = "",
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> CriteriaExport:
    """Back the store up, then write the project's criteria and surface hash into it.

    Nothing but the listed keys of `context_store_meta` is written. Raise ValidationError
    (the store untouched) when the project has no pack, or the file is not a magic-context
    store with a `context_store_meta` table, or the store stays locked.
    """
    path = Path(path)
    entries = criteria_entries(project)
    try:
        backup_path = write_store_meta(
            path, entries, backup_dir=backup_dir or default_backup_dir(), timeout=timeout
        )
    except StoreError as error:
        raise ValidationError(str(error), code="store") from error
    surface = json.loads(entries[surface_key(project.identity)])["surface_hash"]
    with acting(actor=actor, reason=reason):
        audit_record(
            action="criteria_exported",
            target=project,
            project=project,
            changes={
                "store": str(path.resolve()),
                "keys": len(entries),
                "surface_hash": surface,
                "backup": str(backup_path),
            },
        )
    return CriteriaExport(keys=list(entries), surface_hash=surface, backup_path=backup_path)

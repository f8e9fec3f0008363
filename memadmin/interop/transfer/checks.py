"""Check a project export document before anything of it is written.

Plain Python over the parsed JSON: every problem is collected as ``path: problem`` (e.g.
``memories[3].category: must be text of 1 to 40 characters``), so one reading of the
document lists all that is wrong with it. What needs the database (does the project
exist already? does the pack file exist?) is checked by the import service.
"""

from collections.abc import Callable

from memadmin.core.ledger import BUDGET_MAX, BUDGET_MIN
from memadmin.core.patterns import MD5_HEX, PROJECT_IDENTITY
from memadmin.memories.models import Memory

from .export import FORMAT, MEMORY_FIELDS, REFERENCE_SET_FIELDS, VERSION

Check = Callable[[object], str | None]

COMPOSITE_TYPES = ("sequence", "theme", "cause", "alternatives")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def integer(low: int | None = None, high: int | None = None, *, optional: bool = False) -> Check:
    """Return a check for a whole number within bounds (or null when optional)."""

    def check(value: object) -> str | None:
        if value is None and optional:
            return None
        if not _is_int(value):
            return "must be a whole number" + (" or null" if optional else "")
        if (low is not None and value < low) or (high is not None and value > high):
            return (
                f"must be between {low} and {high}"
                if high is not None
                else f"must be {low} or more"
            )
        return None

    return check


def text(low: int = 0, high: int | None = None) -> Check:
    """Return a check for a string of ``low`` to ``high`` characters."""

    def check(value: object) -> str | None:
        if not isinstance(value, str):
            return "must be text"
        if len(value) < low or (high is not None and len(value) > high):
            if low and not value.strip():
                return "must not be empty"
            return f"must be text of {low} to {high} characters" if high else "must not be empty"
        return None

    return check


def choice(options: tuple[str, ...]) -> Check:
    """Return a check for one of ``options``."""

    def check(value: object) -> str | None:
        return None if value in options else f"must be one of {', '.join(options)}"

    return check


def boolean(value: object) -> str | None:
    """Check for true or false."""
    return None if isinstance(value, bool) else "must be true or false"


def mapping(value: object) -> str | None:
    """Check for a JSON object."""
    return None if isinstance(value, dict) else "must be a JSON object"


def md5_hex(value: object) -> str | None:
    """Check for 32 lowercase hex digits."""
    return (
        None if isinstance(value, str) and MD5_HEX.fullmatch(value) else "must be an MD5 hex digest"
    )


def optional_key(value: object) -> str | None:
    """Check for an export key (a whole number from 1) or null."""
    return integer(1, optional=True)(value)


def key_list(value: object) -> str | None:
    """Check for a list of export keys."""
    if not isinstance(value, list) or not all(_is_int(item) and item >= 1 for item in value):
        return "must be a list of keys (whole numbers from 1)"
    return None


MEMORY_CHECKS: dict[str, Check] = {
    "key": integer(1),
    "upstream_id": integer(optional=True),
    "category": text(1, 40),
    "content": text(1),
    "normalized_hash": md5_hex,
    "importance": integer(1, 100, optional=True),
    "scope": choice(tuple(Memory.Scope.values)),
    "shareable": boolean,
    "source_session_id": text(0, 200),
    "source_type": choice(tuple(Memory.SourceType.values)),
    "seen_count": integer(0),
    "retrieval_count": integer(0),
    "first_seen_at": integer(),
    "created_at": integer(),
    "updated_at": integer(),
    "last_seen_at": integer(),
    "last_retrieved_at": integer(optional=True),
    "status": choice(tuple(Memory.Status.values)),
    "expires_at": integer(optional=True),
    "verification_status": choice(tuple(Memory.Verification.values)),
    "verified_at": integer(optional=True),
    "classified_at": integer(optional=True),
    "metadata": mapping,
    "upstream_gone_at": integer(optional=True),
    "superseded_by": optional_key,
    "merged_from": key_list,
}
assert set(MEMORY_CHECKS) == {"key", *MEMORY_FIELDS, "superseded_by", "merged_from"}

COMPOSITE_CHECKS: dict[str, Check] = {
    "key": integer(1),
    "type": choice(COMPOSITE_TYPES),
    "title": text(0, 200),
    "head": integer(1),
    "cursor": integer(0),
    "members": key_list,
}
REFERENCE_SET_CHECKS: dict[str, Check] = {
    "ref": text(1, 40),
    "composite_type": choice(COMPOSITE_TYPES),
    "title": text(0, 200),
    "cursor": integer(0),
    "frozen_at": integer(),
    "frozen_by": text(1, 150),
    "note": text(),
    "composite": optional_key,
    "items": lambda value: None if isinstance(value, list) else "must be a list",
}
assert set(REFERENCE_SET_CHECKS) == {*REFERENCE_SET_FIELDS, "composite", "items"}
ITEM_CHECKS: dict[str, Check] = {
    "memory": optional_key,
    "display_id": integer(),
    "role": choice(("head", "member")),
    "digest": text(1, 64),
}
OVERRIDE_CHECKS: dict[str, Check] = {
    "category": text(1, 40),
    "override_criteria": lambda value: None if value is None else mapping(value),
    "default_moved": boolean,
    "previous_default": lambda value: None if value is None else mapping(value),
}
PROJECT_CHECKS: dict[str, Check] = {
    "identity": lambda value: (
        None
        if isinstance(value, str) and PROJECT_IDENTITY.fullmatch(value) and len(value) <= 200
        else "must be a project identity ('git:<root-commit-sha>' or 'dir:<hash>')"
    ),
    "name": text(1, 200),
    "injection_budget": integer(BUDGET_MIN, BUDGET_MAX),
    "pack": lambda value: None if value is None else mapping(value),
}
PACK_CHECKS: dict[str, Check] = {"name": text(1, 80), "version": text(0, 40), "digest": text(0, 64)}


class Problems(list):
    """The problems found so far, each ``path: problem``."""

    def add(self, path: str, problem: str) -> None:
        self.append(f"{path}: {problem}")


def check_object(value: object, checks: dict[str, Check], path: str, problems: Problems) -> bool:
    """Check an object's keys and values; return True when it is an object at all."""
    if not isinstance(value, dict):
        problems.add(path, "must be a JSON object")
        return False
    for name in sorted(value.keys() - checks.keys()):
        problems.add(f"{path}.{name}", "is not part of the format")
    for name, check in checks.items():
        if name not in value:
            problems.add(f"{path}.{name}", "is missing")
            continue
        problem = check(value[name])
        if problem is not None:
            problems.add(f"{path}.{name}", problem)
    return True


def check_list(document: dict, name: str, checks: dict, problems: Problems) -> list[dict]:
    """Check a top-level list of objects; return the objects that are objects."""
    items = document.get(name)
    if not isinstance(items, list):
        problems.add(name, "must be a list")
        return []
    return [
        item
        for index, item in enumerate(items)
        if check_object(item, checks, f"{name}[{index}]", problems)
    ]


def check_document(document: object) -> Problems:
    """Return every problem of the document's shape, keys and references (empty when sound)."""
    problems = Problems()
    if not isinstance(document, dict):
        problems.add("document", "must be a JSON object")
        return problems
    if document.get("format") != FORMAT:
        problems.add("format", f"must be {FORMAT!r}; this is not a memadmin project export")
        return problems
    if document.get("version") != VERSION:
        problems.add(
            "version",
            f"{document.get('version')!r} is not a version this memadmin reads ({VERSION})",
        )
        return problems
    top = {
        "format",
        "version",
        "project",
        "criteria_overrides",
        "memories",
        "composites",
        "reference_sets",
    }
    for name in sorted(document.keys() - top):
        problems.add(name, "is not part of the format")
    project = document.get("project")
    if check_object(project, PROJECT_CHECKS, "project", problems) and isinstance(
        project.get("pack"), dict
    ):
        check_object(project["pack"], PACK_CHECKS, "project.pack", problems)
    overrides = check_list(document, "criteria_overrides", OVERRIDE_CHECKS, problems)
    _unique(overrides, "category", "criteria_overrides", problems)
    memories = check_list(document, "memories", MEMORY_CHECKS, problems)
    composites = check_list(document, "composites", COMPOSITE_CHECKS, problems)
    reference_sets = check_list(document, "reference_sets", REFERENCE_SET_CHECKS, problems)
    memory_keys = _unique(memories, "key", "memories", problems)
    _unique(memories, "upstream_id", "memories", problems)
    _unique_pairs(memories, problems)
    composite_keys = _unique(composites, "key", "composites", problems)
    _unique(reference_sets, "ref", "reference_sets", problems)
    _check_memory_references(memories, memory_keys, problems)
    _check_composites(composites, memory_keys, problems)
    _check_reference_sets(reference_sets, memory_keys, composite_keys, problems)
    return problems


def _unique(items: list[dict], name: str, path: str, problems: Problems) -> set:
    """Record a problem for each repeated value of ``name``; return the values seen."""
    seen: dict[object, int] = {}
    for index, item in enumerate(items):
        value = item.get(name)
        if value is None or isinstance(value, (dict, list)):
            continue
        if value in seen:
            problems.add(f"{path}[{index}].{name}", f"{value!r} repeats {path}[{seen[value]}]")
        else:
            seen[value] = index
    return set(seen)


def _unique_pairs(memories: list[dict], problems: Problems) -> None:
    seen: dict[tuple, int] = {}
    for index, memory in enumerate(memories):
        pair = (memory.get("category"), memory.get("normalized_hash"))
        if not all(isinstance(part, str) for part in pair):
            continue
        if pair in seen:
            problems.add(
                f"memories[{index}].normalized_hash",
                f"the same text is already in {pair[0]} (memories[{seen[pair]}])",
            )
        else:
            seen[pair] = index


def _missing(value: object, keys: set) -> bool:
    return _is_int(value) and value not in keys


def _check_memory_references(memories: list[dict], keys: set, problems: Problems) -> None:
    for index, memory in enumerate(memories):
        if _missing(memory.get("superseded_by"), keys):
            problems.add(f"memories[{index}].superseded_by", "names no memory of the export")
        merged = memory.get("merged_from")
        for source in merged if isinstance(merged, list) else []:
            if _missing(source, keys):
                problems.add(f"memories[{index}].merged_from", f"{source} names no memory")


def _check_composites(composites: list[dict], keys: set, problems: Problems) -> None:
    for index, composite in enumerate(composites):
        path = f"composites[{index}]"
        head, members = composite.get("head"), composite.get("members")
        if _missing(head, keys):
            problems.add(f"{path}.head", "names no memory of the export")
        if not isinstance(members, list):
            continue
        for member in members:
            if _missing(member, keys):
                problems.add(f"{path}.members", f"{member} names no memory of the export")
        if head in members:
            problems.add(f"{path}.members", "holds the head; a head is never its own member")
        if len(set(members)) != len(members):
            problems.add(f"{path}.members", "names a memory twice")
        cursor = composite.get("cursor")
        if _is_int(cursor) and cursor >= max(1, len(members)):
            problems.add(f"{path}.cursor", f"{cursor} is past the last member")


def _check_reference_sets(
    reference_sets: list[dict], keys: set, composite_keys: set, problems: Problems
) -> None:
    for index, reference_set in enumerate(reference_sets):
        path = f"reference_sets[{index}]"
        if _missing(reference_set.get("composite"), composite_keys):
            problems.add(f"{path}.composite", "names no composite of the export")
        items = reference_set.get("items")
        for number, item in enumerate(items if isinstance(items, list) else []):
            item_path = f"{path}.items[{number}]"
            if check_object(item, ITEM_CHECKS, item_path, problems) and _missing(
                item.get("memory"), keys
            ):
                problems.add(f"{item_path}.memory", "names no memory of the export")

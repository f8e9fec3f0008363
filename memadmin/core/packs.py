"""Policy packs: versioned TOML files naming a project's categories and their criteria.

A pack file holds one ``[pack]`` table and an array of ``[[categories]]``; its stem is the
pack name. Everything is checked on load, and the first problem found raises a
``PackError`` naming the file, the field (a dotted path such as
``categories[3].criteria.definition``, indices counted from 0 in file order) and the
problem. The same criteria rules back ``criteria_from_dict``, so stored overrides are held
to the rules the pack defaults obey.
"""

import hashlib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

CATEGORY_NAME = re.compile(r"^[A-Z][A-Z0-9_]{1,39}$")
PACK_NAME = re.compile(r"^[a-z][a-z0-9-]{0,63}$")
SEMVER = re.compile(
    r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
    r"(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)

QUESTION_MAX = 300
DEFINITION_MAX = 2000
EXAMPLE_MAX = 500
LIST_MAX = 20
PACK_TEXT_MAX = 2000
# A priority or a TTL in days is kept in a 32-bit column.
NUMBER_MAX = 2**31 - 1

_TOML_POSITION = re.compile(r"\(at line (\d+), column (\d+)\)$")


class CriteriaError(ValueError):
    """Criteria that break a rule; ``field`` is relative to the criteria table."""

    def __init__(self, field: str, problem: str):
        self.field = field
        self.problem = problem
        super().__init__(f"{field}: {problem}")


class PackError(ValueError):
    """A pack file that cannot be loaded, with the file, field and problem named."""

    def __init__(self, file: str, field: str, problem: str):
        self.file = file
        self.field = field
        self.problem = problem
        super().__init__(f"{file}: {field}: {problem}")


class PackNotFoundError(LookupError):
    """No pack of the requested name exists in the directory."""


@dataclass(frozen=True)
class NegativeExample:
    example: str
    reason: str


@dataclass(frozen=True)
class Criteria:
    test_question: str
    definition: str
    positive_examples: tuple[str, ...]
    negative_examples: tuple[NegativeExample, ...]
    exclusions: tuple[str, ...]
    hard_stop: str = ""


@dataclass(frozen=True)
class CategorySpec:
    name: str
    priority: int
    ttl_days: int | None
    legacy: bool
    maps_to: str | None
    criteria: Criteria


@dataclass(frozen=True)
class PackSpec:
    name: str
    version: str
    description: str
    routing_test: str
    categories: tuple[CategorySpec, ...]  # in priority order
    path: str
    digest: str

    def category(self, name: str) -> CategorySpec:
        """Return the category of that name, or raise KeyError."""
        for spec in self.categories:
            if spec.name == name:
                return spec
        raise KeyError(name)

    def names(self) -> tuple[str, ...]:
        """Return every category name, writable and legacy, in priority order."""
        return tuple(spec.name for spec in self.categories)

    def writable_names(self) -> tuple[str, ...]:
        """Return the names of the non-legacy categories in priority order."""
        return tuple(spec.name for spec in self.categories if not spec.legacy)


# --- field checks: each raises CriteriaError(field, problem) with a path relative to its table


def _keys(table: object, field: str, required: set[str], optional: set[str] = frozenset()):
    if not isinstance(table, Mapping):
        raise CriteriaError(field, f"must be a table, not {_type_name(table)}")
    prefix = f"{field}." if field else ""
    for key in sorted(required - table.keys()):
        raise CriteriaError(prefix + key, "is required")
    for key in sorted(table.keys() - required - optional, key=str):
        raise CriteriaError(f"{prefix}{key}", "is not a known key")
    return table


def _text(value: object, field: str, limit: int, *, one_line: bool = False) -> str:
    if not isinstance(value, str) or not value.strip():
        raise CriteriaError(field, "must be a non-empty string")
    value = value.strip()
    if one_line and "\n" in value:
        raise CriteriaError(field, "must be a single line")
    if len(value) > limit:
        raise CriteriaError(field, f"is {len(value)} characters long; the limit is {limit}")
    return value


def _list(value: object, field: str) -> list:
    if not isinstance(value, list):
        raise CriteriaError(field, f"must be a list, not {_type_name(value)}")
    if len(value) > LIST_MAX:
        raise CriteriaError(field, f"has {len(value)} items; the limit is {LIST_MAX}")
    return value


def _texts(value: object, field: str, limit: int) -> tuple[str, ...]:
    items = _list(value, field)
    return tuple(_text(item, f"{field}[{i}]", limit) for i, item in enumerate(items))


def _integer(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise CriteriaError(field, f"must be an integer, not {_type_name(value)}")
    if value < 1:
        raise CriteriaError(field, "must be a positive integer")
    if value > NUMBER_MAX:
        raise CriteriaError(field, f"is {value}; the largest allowed is {NUMBER_MAX}")
    return value


def _type_name(value: object) -> str:
    names = {str: "a string", bool: "a boolean", int: "an integer", float: "a float"}
    names |= {list: "a list", dict: "a table"}
    return names.get(type(value), type(value).__name__)


def _criteria(data: object, field: str = "") -> Criteria:
    prefix = f"{field}." if field else ""
    data = _keys(
        data,
        field,
        {"test_question", "definition", "positive_examples", "negative_examples", "exclusions"},
        {"hard_stop"},
    )
    negatives = []
    for i, item in enumerate(_list(data["negative_examples"], prefix + "negative_examples")):
        item_field = f"{prefix}negative_examples[{i}]"
        item = _keys(item, item_field, {"example", "reason"})
        negatives.append(
            NegativeExample(
                example=_text(item["example"], f"{item_field}.example", EXAMPLE_MAX),
                reason=_text(item["reason"], f"{item_field}.reason", EXAMPLE_MAX),
            )
        )
    hard_stop = data.get("hard_stop", "")
    if hard_stop != "":
        hard_stop = _text(hard_stop, prefix + "hard_stop", EXAMPLE_MAX)
    return Criteria(
        test_question=_text(
            data["test_question"], prefix + "test_question", QUESTION_MAX, one_line=True
        ),
        definition=_text(data["definition"], prefix + "definition", DEFINITION_MAX),
        positive_examples=_texts(
            data["positive_examples"], prefix + "positive_examples", EXAMPLE_MAX
        ),
        negative_examples=tuple(negatives),
        exclusions=_texts(data["exclusions"], prefix + "exclusions", EXAMPLE_MAX),
        hard_stop=hard_stop,
    )


def criteria_from_dict(data: object) -> Criteria:
    """Return the Criteria stored as ``data``, or raise CriteriaError naming the bad field."""
    return _criteria(data)


def criteria_to_dict(criteria: Criteria) -> dict:
    """Return the criteria as plain JSON-ready data that ``criteria_from_dict`` reads back."""
    data = {
        "test_question": criteria.test_question,
        "definition": criteria.definition,
        "positive_examples": list(criteria.positive_examples),
        "negative_examples": [
            {"example": item.example, "reason": item.reason} for item in criteria.negative_examples
        ],
        "exclusions": list(criteria.exclusions),
    }
    if criteria.hard_stop:
        data["hard_stop"] = criteria.hard_stop
    return data


# --- whole packs


def _category(data: object, field: str) -> CategorySpec:
    data = _keys(data, field, {"name", "priority", "criteria"}, {"ttl_days", "legacy", "maps_to"})
    name = data["name"]
    if not isinstance(name, str) or not CATEGORY_NAME.match(name):
        raise CriteriaError(
            f"{field}.name", f"{name!r} must match {CATEGORY_NAME.pattern} (e.g. PROJECT_RULES)"
        )
    legacy = data.get("legacy", False)
    if not isinstance(legacy, bool):
        raise CriteriaError(f"{field}.legacy", f"must be true or false, not {_type_name(legacy)}")
    maps_to = data.get("maps_to")
    if legacy and maps_to is None:
        raise CriteriaError(f"{field}.maps_to", "is required when legacy = true")
    if not legacy and maps_to is not None:
        raise CriteriaError(f"{field}.maps_to", "is allowed only when legacy = true")
    if maps_to is not None and not isinstance(maps_to, str):
        raise CriteriaError(f"{field}.maps_to", f"must be a string, not {_type_name(maps_to)}")
    ttl_days = data.get("ttl_days")
    return CategorySpec(
        name=name,
        priority=_integer(data["priority"], f"{field}.priority"),
        ttl_days=None if ttl_days is None else _integer(ttl_days, f"{field}.ttl_days"),
        legacy=legacy,
        maps_to=maps_to,
        criteria=_criteria(data["criteria"], f"{field}.criteria"),
    )


def _pack(data: dict, stem: str) -> tuple[dict, tuple[CategorySpec, ...]]:
    _keys(data, "", {"pack", "categories"})
    header = _keys(data["pack"], "pack", {"name", "version", "description", "routing_test"})
    if header["name"] != stem:
        raise CriteriaError("pack.name", f"{header['name']!r} must equal the file stem {stem!r}")
    version = header["version"]
    if not isinstance(version, str) or not SEMVER.match(version):
        raise CriteriaError("pack.version", f"{version!r} is not a semantic version like 1.0.0")
    meta = {
        "name": stem,
        "version": version,
        "description": _text(header["description"], "pack.description", PACK_TEXT_MAX),
        "routing_test": _text(header["routing_test"], "pack.routing_test", PACK_TEXT_MAX),
    }
    entries = data["categories"]
    if not isinstance(entries, list) or not entries:
        raise CriteriaError("categories", "must be a non-empty array of [[categories]] tables")
    categories = [_category(entry, f"categories[{i}]") for i, entry in enumerate(entries)]
    seen_names: dict[str, int] = {}
    seen_priorities: dict[int, int] = {}
    for i, spec in enumerate(categories):
        if spec.name in seen_names:
            raise CriteriaError(
                f"categories[{i}].name",
                f"{spec.name} is already the name of categories[{seen_names[spec.name]}]",
            )
        if spec.priority in seen_priorities:
            raise CriteriaError(
                f"categories[{i}].priority",
                f"{spec.priority} is already the priority of "
                f"categories[{seen_priorities[spec.priority]}]",
            )
        seen_names[spec.name] = i
        seen_priorities[spec.priority] = i
    writable = {spec.name for spec in categories if not spec.legacy}
    if not writable:
        raise CriteriaError("categories", "must hold at least one category without legacy = true")
    for i, spec in enumerate(categories):
        if spec.maps_to is not None and spec.maps_to not in writable:
            kind = "a legacy" if spec.maps_to in seen_names else "an unknown"
            raise CriteriaError(
                f"categories[{i}].maps_to",
                f"{spec.maps_to} is {kind} category; it must name a non-legacy category",
            )
    return meta, tuple(sorted(categories, key=lambda spec: spec.priority))


# A pack is read each time a project is made or checked; the same text gives the same
# (immutable) pack, so the last few are kept. A broken text raises each time.
@lru_cache(maxsize=32)
def load_pack_text(text: str, *, filename: str) -> PackSpec:
    """Return the pack held in ``text``; ``filename`` gives the stem it must be named after."""
    path = Path(filename)
    try:
        data = tomllib.loads(text)
    except RecursionError:
        raise PackError(path.name, "file", "invalid TOML: nested too deeply to read") from None
    except tomllib.TOMLDecodeError as error:
        message = str(error)
        position = _TOML_POSITION.search(message)
        field = f"line {position[1]}" if position else "file"
        problem = _TOML_POSITION.sub("", message).strip()
        if position:
            problem += f" (column {position[2]})"
        raise PackError(path.name, field, f"invalid TOML: {problem}") from None
    try:
        meta, categories = _pack(data, path.stem)
    except CriteriaError as error:
        raise PackError(path.name, error.field or "file", error.problem) from None
    return PackSpec(
        **meta,
        categories=categories,
        path=str(filename),
        digest=hashlib.sha256(text.encode("utf-8")).hexdigest(),
    )


def load_pack(path: str | Path) -> PackSpec:
    """Return the pack stored in the file at ``path``; its digest is the SHA-256 of the bytes."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise PackError(path.name, "file", "is a folder, not a pack file") from None
    except OSError as error:
        raise PackError(path.name, "file", f"cannot be read ({error.strerror})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise PackError(path.name, "file", f"is not UTF-8 text ({error.reason})") from None
    # UTF-8 decoding round-trips exactly, so the text's digest is the digest of the bytes.
    return load_pack_text(text, filename=str(path))


@dataclass(frozen=True)
class PackFile:
    """An entry ``*.toml`` of a packs directory: its pack, or why it does not load."""

    name: str
    spec: PackSpec | None
    error: str = ""


def pack_files(directory: str | Path) -> list[PackFile]:
    """Return every ``*.toml`` entry of ``directory`` by name, a broken one with its error."""
    files = []
    for path in sorted(Path(directory).glob("*.toml")):
        try:
            files.append(PackFile(path.stem, load_pack(path)))
        except PackError as error:
            files.append(PackFile(path.stem, None, str(error)))
    return files


def list_packs(directory: str | Path) -> list[PackSpec]:
    """Return every pack in ``directory`` that loads, sorted by name (see `pack_files`)."""
    return [file.spec for file in pack_files(directory) if file.spec is not None]


def find_pack(directory: str | Path, name: str) -> PackSpec:
    """Return the pack called ``name`` in ``directory``, or raise PackNotFoundError."""
    path = Path(directory) / f"{name}.toml"
    if not PACK_NAME.match(name) or not path.exists():
        available = ", ".join(p.stem for p in sorted(Path(directory).glob("*.toml"))) or "none"
        raise PackNotFoundError(f"no pack named {name!r} in {directory} (available: {available})")
    return load_pack(path)

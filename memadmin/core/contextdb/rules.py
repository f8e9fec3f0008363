"""What upstream writes into each column read, checked inside SQLite.

Each table read is described by its column rules. From them one SELECT is built that
returns the row and, last, a string naming every bad value as ``column:code``; the string
is empty for a clean row. SQLite does the checking in C, so a clean row costs Python
nothing beyond building its record, and a bad row is explained from its codes alone.
"""

from collections.abc import Mapping
from dataclasses import dataclass

TEXT = "text"
INTEGER = "integer"
INT_LIST = "int_list"  # TEXT holding a JSON array of integers
OBJECT = "object"  # TEXT holding a JSON object

MEMORY_STATUSES = ("active", "permanent", "archived")
MEMORY_SCOPES = ("project", "ecosystem", "universe")
SOURCE_TYPES = ("historian", "agent", "dreamer", "user")
VERIFICATION_STATUSES = ("unverified", "verified", "stale", "flagged")


@dataclass(frozen=True)
class ColumnRule:
    """How one column is read and checked.

    ``field`` names the record attribute when it differs from the column. ``nullable``
    says whether NULL is a legitimate value. ``absent`` is the value read when the column
    does not exist; ``fallback`` replaces a bad value. ``essential`` marks a column a row
    cannot be understood without: a bad value there leaves the row out.
    """

    name: str
    kind: str
    nullable: bool = True
    allowed: tuple[str | int, ...] = ()
    bounds: tuple[int, int] | None = None
    absent: object = None
    fallback: object = None
    essential: bool = False
    field: str = ""

    @property
    def attribute(self) -> str:
        """Return the record attribute this column fills."""
        return self.field or self.name


def _text(name: str, **options: object) -> ColumnRule:
    return ColumnRule(name, TEXT, **options)


def _integer(name: str, **options: object) -> ColumnRule:
    return ColumnRule(name, INTEGER, **options)


MEMORY_RULES: tuple[ColumnRule, ...] = (
    _integer("id", nullable=False, essential=True),
    _text("project_path", nullable=False, essential=True),
    _text("category", nullable=False, essential=True),
    _text("content", nullable=False, essential=True),
    _text("normalized_hash", nullable=False),
    _integer("importance", bounds=(1, 100)),
    _text("scope", nullable=False, allowed=MEMORY_SCOPES, absent="project", fallback="project"),
    _integer("shareable", nullable=False, allowed=(0, 1), absent=0, fallback=0),
    _text("source_session_id"),
    _text("source_type", allowed=SOURCE_TYPES, absent="historian"),
    _integer("seen_count", absent=1),
    _integer("retrieval_count", absent=0),
    _integer("first_seen_at", nullable=False),
    _integer("created_at", nullable=False),
    _integer("updated_at", nullable=False),
    _integer("last_seen_at", nullable=False),
    _integer("last_retrieved_at"),
    # NULL is allowed by upstream's DDL, but such a row matches no status upstream selects.
    _text("status", nullable=False, allowed=MEMORY_STATUSES, essential=True),
    _integer("expires_at"),
    _text("verification_status", allowed=VERIFICATION_STATUSES, absent="unverified"),
    _integer("verified_at"),
    _integer("classified_at"),
    _integer("superseded_by_memory_id"),
    ColumnRule("merged_from", INT_LIST),
    ColumnRule("metadata_json", OBJECT, field="metadata"),
    _text("mural_cue"),
    _text("mural_cue_hash"),
    _integer("mural_cue_at"),
    _integer("mural_cue_rejection_count", nullable=False, absent=0, fallback=0),
)

REQUIRED_MEMORY_COLUMNS = frozenset(
    {
        "id",
        "project_path",
        "category",
        "content",
        "normalized_hash",
        "importance",
        "status",
        "expires_at",
        "created_at",
        "updated_at",
        "last_seen_at",
    }
)

SESSION_RULES: tuple[ColumnRule, ...] = (
    _text("session_id", nullable=False, essential=True),
    _text("project_path"),
    _text("system_prompt_hash"),
    ColumnRule("memory_block_ids", INT_LIST),
    _integer("updated_at"),
)


def quote_identifier(name: str) -> str:
    """Return ``name`` quoted as an SQLite identifier."""
    return '"' + name.replace('"', '""') + '"'


def _literal(value: object) -> str:
    if value is None:
        return "NULL"
    if isinstance(value, int):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"


def _type_is_wrong(column: str, kind: str, declared: str) -> str:
    """Return a condition true when a non-NULL value has the wrong storage class.

    Comparisons stand in for ``typeof()``, which costs a function call per value: text sorts
    above numbers and below blobs, and a column of INTEGER affinity never holds an integral
    REAL, so comparing a number with its CAST to INTEGER tells an integer apart. The
    condition is NULL, never true, for a NULL value.
    """
    if kind != INTEGER:
        return f"({column} >= '' AND {column} < x'') = 0"
    if "INT" in declared.upper():
        return f"({column} < '' AND {column} = CAST({column} AS INTEGER)) = 0"
    return f"typeof({column}) != 'integer'"


def problem_branches(rule: ColumnRule, declared: str) -> list[tuple[str, str]]:
    """Return the (condition, code) pairs that find a bad value in the rule's column, in order.

    Each condition after the first holds only for a non-NULL value, and each assumes the
    ones before it were false: the first that holds names the problem.
    """
    column = quote_identifier(rule.name)
    branches = []
    if not rule.nullable:
        branches.append((f"{column} IS NULL", "null"))
    branches.append((_type_is_wrong(column, rule.kind, declared), "type"))
    if rule.kind != INTEGER:
        # PostgreSQL's text and JSON cannot hold NUL; refusing it here keeps both engines alike.
        branches.append((f"instr({column}, char(0)) > 0", "nul"))
    if rule.allowed:
        allowed = ", ".join(_literal(value) for value in rule.allowed)
        branches.append((f"{column} NOT IN ({allowed})", "value"))
    if rule.bounds:
        low, high = rule.bounds
        branches.append((f"{column} NOT BETWEEN {low} AND {high}", "range"))
    if rule.kind in (INT_LIST, OBJECT):
        # json_valid(NULL) is 0, not NULL, so NULL is ruled out by hand.
        branches.append((f"({column} IS NOT NULL AND NOT json_valid({column}))", "json"))
    if rule.kind == INT_LIST:
        wrong_shape = (
            f"json_type({column}) != 'array' OR EXISTS "
            f"(SELECT 1 FROM json_each({column}) WHERE type != 'integer')"
        )
        branches.append((f"CASE WHEN json_valid({column}) THEN {wrong_shape} END", "int_list"))
    if rule.kind == OBJECT:
        branches.append(
            (f"CASE WHEN json_valid({column}) THEN json_type({column}) != 'object' END", "object")
        )
    return branches


def select_checked(table: str, rules: tuple[ColumnRule, ...], present: Mapping[str, str]) -> str:
    """Return a SELECT of every rule's value, in rule order, then the problem codes.

    ``present`` maps the table's columns to their declared types. A column absent from it
    is read as its ``absent`` literal and never checked. The codes are spelled out only for
    a row where some condition holds, so a clean row costs one pass over the conditions.
    """
    values, conditions, codes = [], [], []
    for rule in rules:
        if rule.name not in present:
            values.append(_literal(rule.absent))
            continue
        values.append(quote_identifier(rule.name))
        branches = problem_branches(rule, present[rule.name])
        conditions.extend(f"({condition})" for condition, _ in branches)
        case = " ".join(f"WHEN {condition} THEN '{code}'" for condition, code in branches)
        codes.append(f"coalesce('{rule.name}:' || CASE {case} END || ' ', '')")
    if conditions:
        problems = f"CASE WHEN {' OR '.join(conditions)} THEN {' || '.join(codes)} ELSE '' END"
    else:
        problems = "''"
    return f"SELECT {', '.join(values)}, {problems} FROM {quote_identifier(table)}"


def describe(code: str, value: object, rule: ColumnRule) -> str:
    """Return a sentence saying what is wrong with ``value`` given its problem ``code``."""
    shown = repr(value if not isinstance(value, str) or len(value) <= 60 else value[:57] + "...")
    if code == "null":
        return "is NULL, but upstream always writes a value here"
    if code == "type":
        expected = "an integer" if rule.kind == INTEGER else "text"
        return f"holds {type(value).__name__} {shown}, expected {expected}"
    if code == "value":
        allowed = " | ".join(str(item) for item in rule.allowed)
        return f"{shown} is not one of {allowed}"
    if code == "range":
        low, high = rule.bounds or (None, None)
        return f"{shown} is outside {low}..{high}"
    if code == "json":
        return f"{shown} is not valid JSON"
    if code == "int_list":
        return f"{shown} is not a JSON array of integers"
    if code == "object":
        return f"{shown} is not a JSON object"
    if code == "nul":
        at = value.find("\x00") + 1 if isinstance(value, str) else 0
        return f"holds a NUL character (at character {at}), which memadmin cannot store"
    if code == "nul_escape":
        return "holds JSON whose text decodes to a NUL character, which memadmin cannot store"
    if code == "utf8":
        return "is not valid UTF-8; read with replacement characters"
    return f"{shown} has an unknown problem ({code})"

"""Plain records read from an upstream store."""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class UpstreamMemory:
    """One row of upstream's ``memories`` table.

    Fields follow the columns. Two hold parsed values: ``merged_from`` (the JSON array of
    source ids, as a tuple) and ``metadata`` (the object in ``metadata_json``). A column
    absent from an older store reads as upstream's DEFAULT for it, or None. Times are
    milliseconds since the epoch; ``shareable`` is 0 or 1 as upstream stores it.
    """

    id: int
    project_path: str
    category: str
    content: str
    normalized_hash: str | None
    importance: int | None
    scope: str
    shareable: int
    source_session_id: str | None
    source_type: str | None
    seen_count: int | None
    retrieval_count: int | None
    first_seen_at: int | None
    created_at: int | None
    updated_at: int | None
    last_seen_at: int | None
    last_retrieved_at: int | None
    status: str
    expires_at: int | None
    verification_status: str | None
    verified_at: int | None
    classified_at: int | None
    superseded_by_memory_id: int | None
    merged_from: tuple[int, ...] | None
    metadata: dict[str, object] | None = field(hash=False)
    mural_cue: str | None
    mural_cue_hash: str | None
    mural_cue_at: int | None
    mural_cue_rejection_count: int


@dataclass(frozen=True)
class UpstreamSession:
    """One row of upstream's ``session_meta``; columns an older store lacks read as None."""

    session_id: str
    project_path: str | None
    system_prompt_hash: str | None
    memory_block_ids: tuple[int, ...] | None
    updated_at: int | None


@dataclass(frozen=True)
class RowProblem:
    """A value upstream would not have written, found while reading a row.

    ``row_id`` is the memory id, or the session id for ``session_meta``. When
    ``row_skipped`` is False the row was kept with the value replaced by None (or by the
    column's DEFAULT where upstream forbids NULL); when True the row was left out because
    the value is one the row cannot be understood without.
    """

    table: str
    row_id: int | str | None
    column: str
    problem: str
    row_skipped: bool = False

    @property
    def text(self) -> str:
        """Return the problem as one line naming the table, the row and the column."""
        return problem_line(self.table, self.row_id, self.column, self.problem)


def problem_line(table: str, row: int | str | None, column: str, problem: str) -> str:
    """Return a problem as one line: "memories row 12, column status: not a status".

    A problem of no table (a sync that failed as a whole) is its text alone.
    """
    if not table:
        return problem
    where = "" if row is None else f" row {row}"
    return f"{table}{where}, column {column}: {problem}"


@dataclass(frozen=True)
class StoreInfo:
    """What a store is: its schema version, memory columns, identity and projects."""

    schema_version: int | None
    migrations: int
    columns: frozenset[str]
    store_uuid: str | None
    projects: list[str]


@dataclass(frozen=True)
class StoreRead:
    """Everything read from one consistent snapshot of a store."""

    memories: list[UpstreamMemory]
    sessions: list[UpstreamSession]
    problems: list[RowProblem]

"""Read what the dreamer did in each run for a project, from ``dream_runs``.

Plain Python over ``sqlite3``, read-only. Upstream's DDL
(``features/magic-context/storage-db.ts``, read from its main line)::

    CREATE TABLE IF NOT EXISTS dream_runs (
      id INTEGER PRIMARY KEY AUTOINCREMENT, project_path TEXT NOT NULL,
      started_at INTEGER NOT NULL, finished_at INTEGER NOT NULL, holder_id TEXT NOT NULL,
      tasks_json TEXT NOT NULL, tasks_succeeded INTEGER NOT NULL DEFAULT 0,
      tasks_failed INTEGER NOT NULL DEFAULT 0, smart_notes_surfaced INTEGER NOT NULL DEFAULT 0,
      smart_notes_pending INTEGER NOT NULL DEFAULT 0, memory_changes_json TEXT);

``tasks_json`` is an array of ``{"name", "durationMs", "resultChars", "error"?}`` (a task
with ``error`` failed); ``memory_changes_json`` is counts only, ``{"written", "deleted",
"archived", "merged"}``, or NULL when the run changed nothing (``dreamer/runner.ts``
compares the project's memory ids before and after the run). No column names the memories
a run changed, so they are found by time: the project's rows written with
``source_type = 'dreamer'`` while the run ran, and the project's ``memory_mutation_log``
rows (archive, update, superseded, delete) queued while it ran. A run's window may hold a
change another writer made at the same time; the page says so.

A JSON column that cannot be read is kept as text and named in ``malformed``, never raised.
"""

import json
import sqlite3
from dataclasses import dataclass, field

from memadmin.core.contextdb.opening import table_columns

RUN_COLUMNS = (
    "id",
    "started_at",
    "finished_at",
    "holder_id",
    "tasks_json",
    "tasks_succeeded",
    "tasks_failed",
    "smart_notes_surfaced",
    "smart_notes_pending",
    "memory_changes_json",
)
COUNT_KEYS = ("written", "deleted", "archived", "merged")
RUNS_SHOWN = 50
# What a memory_mutation_log row says happened, in words; a row written by the dreamer is "written".
CHANGE_WORDS = {
    "written": "written",
    "archive": "archived",
    "update": "updated",
    "superseded": "superseded",
    "delete": "deleted",
}


def duration_words(ms: int | None) -> str:
    """Return a duration in words: "850 ms", "12.4 s", "3 min 5 s", or "unknown"."""
    if ms is None:
        return "unknown"
    if ms < 1000:
        return f"{ms} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    minutes, seconds = divmod(round(ms / 1000), 60)
    return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"


@dataclass(frozen=True)
class DreamTask:
    """One task of a run: its name, how long it took, and its error if it failed."""

    name: str
    duration_ms: int | None
    result_chars: int | None
    error: str

    @property
    def duration_text(self) -> str:
        """Return how long the task took, in words."""
        return duration_words(self.duration_ms)


@dataclass(frozen=True)
class MemoryChange:
    """A memory of the project changed while a run ran: which, how, when."""

    memory_id: int
    kind: str
    at: int
    superseded_by: int | None = None

    @property
    def words(self) -> str:
        """Return what happened to the memory, in words ("archived")."""
        return CHANGE_WORDS.get(self.kind, self.kind)


@dataclass
class DreamRun:
    """One row of ``dream_runs``; ``malformed`` names the JSON columns that could not be read."""

    id: int
    started_at: int | None
    finished_at: int | None
    holder_id: str
    tasks: list[DreamTask]
    tasks_text: str
    tasks_succeeded: int | None
    tasks_failed: int | None
    smart_notes_surfaced: int | None
    smart_notes_pending: int | None
    counts: dict[str, object] | None
    counts_text: str | None
    malformed: list[str] = field(default_factory=list)
    changes: list[MemoryChange] = field(default_factory=list)

    @property
    def duration_ms(self) -> int | None:
        """Return how long the run took, or None when a time is missing."""
        if self.started_at is None or self.finished_at is None:
            return None
        return max(0, self.finished_at - self.started_at)

    @property
    def duration_text(self) -> str:
        """Return how long the run took, in words."""
        return duration_words(self.duration_ms)

    @property
    def status(self) -> str:
        """Return "succeeded", "failed", "partly failed" or "no tasks", from the task counts."""
        failed = self.tasks_failed or 0
        succeeded = self.tasks_succeeded or 0
        if failed and succeeded:
            return "partly failed"
        if failed:
            return "failed"
        return "succeeded" if succeeded else "no tasks"


@dataclass
class DreamRuns:
    """A project's last runs, newest first; ``present`` is False for a store without the table."""

    present: bool
    runs: list[DreamRun]


def read_dream_runs(
    connection: sqlite3.Connection, project_path: str, *, limit: int = RUNS_SHOWN
) -> DreamRuns:
    """Return the project's last ``limit`` runs, newest first, each with its memory changes."""
    columns = table_columns(connection, "dream_runs")
    if columns is None or not set(RUN_COLUMNS) <= columns.keys():
        return DreamRuns(present=False, runs=[])
    rows = connection.execute(
        f"SELECT {', '.join(RUN_COLUMNS)} FROM dream_runs WHERE project_path = ? "
        "ORDER BY finished_at DESC, id DESC LIMIT ?",
        (project_path, limit),
    ).fetchall()
    runs = [_run(row) for row in rows]
    _attach_changes(connection, project_path, runs)
    return DreamRuns(present=True, runs=runs)


def _run(row: tuple) -> DreamRun:
    values = dict(zip(RUN_COLUMNS, row, strict=True))
    malformed = []
    tasks_value = _json(values["tasks_json"])
    tasks = _tasks(tasks_value)
    if tasks is None:
        malformed.append("tasks_json")
        tasks = []
    counts = None
    counts_text = values["memory_changes_json"]
    if counts_text is not None:
        parsed = _json(counts_text)
        if counts_text == "null":
            counts_text = None  # JSON's null: no counts, as SQL's NULL
        elif isinstance(parsed, dict):
            counts = {key: parsed.get(key) for key in COUNT_KEYS if key in parsed}
        else:
            malformed.append("memory_changes_json")
    return DreamRun(
        id=values["id"],
        started_at=_int(values["started_at"]),
        finished_at=_int(values["finished_at"]),
        holder_id=str(values["holder_id"] or ""),
        tasks=tasks,
        tasks_text=str(values["tasks_json"]),
        tasks_succeeded=_int(values["tasks_succeeded"]),
        tasks_failed=_int(values["tasks_failed"]),
        smart_notes_surfaced=_int(values["smart_notes_surfaced"]),
        smart_notes_pending=_int(values["smart_notes_pending"]),
        counts=counts,
        counts_text=None if counts_text is None else str(counts_text),
        malformed=malformed,
    )


def _tasks(value: object) -> list[DreamTask] | None:
    if not isinstance(value, list) or not all(isinstance(task, dict) for task in value):
        return None
    return [
        DreamTask(
            name=str(task.get("name", "")),
            duration_ms=_int(task.get("durationMs")),
            result_chars=_int(task.get("resultChars")),
            error="" if task.get("error") in (None, "") else str(task.get("error")),
        )
        for task in value
    ]


def _attach_changes(connection: sqlite3.Connection, project_path: str, runs: list[DreamRun]):
    """Give each run the project's memory changes made between its start and its end."""
    timed = [r for r in runs if r.started_at is not None and r.finished_at is not None]
    if not timed:
        return
    low = min(r.started_at for r in timed)
    high = max(r.finished_at for r in timed)
    found: list[MemoryChange] = []
    memories = table_columns(connection, "memories") or {}
    if {"source_type", "created_at"} <= memories.keys():
        found += [
            MemoryChange(memory_id=memory_id, kind="written", at=at)
            for memory_id, at in connection.execute(
                "SELECT id, created_at FROM memories WHERE project_path = ? "
                "AND source_type = 'dreamer' AND created_at BETWEEN ? AND ?",
                (project_path, low, high),
            )
            if isinstance(at, int)
        ]
    log = table_columns(connection, "memory_mutation_log") or {}
    if {"target_memory_id", "mutation_type", "superseded_by_id", "queued_at"} <= log.keys():
        found += [
            MemoryChange(memory_id=target, kind=str(kind), at=at, superseded_by=successor)
            for target, kind, successor, at in connection.execute(
                "SELECT target_memory_id, mutation_type, superseded_by_id, queued_at "
                "FROM memory_mutation_log WHERE project_path = ? AND queued_at BETWEEN ? AND ? "
                "ORDER BY queued_at, id",
                (project_path, low, high),
            )
            if isinstance(at, int) and isinstance(target, int)
        ]
    found.sort(key=lambda change: (change.at, change.memory_id))
    for run in timed:
        run.changes = [c for c in found if run.started_at <= c.at <= run.finished_at]


def _json(text: object) -> object:
    if not isinstance(text, str):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None

"""The reader of real magic-context stores, on real SQLite files."""

import dataclasses
import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memadmin.core.contextdb import (
    REQUIRED_MEMORY_COLUMNS,
    StoreError,
    UpstreamMemory,
    inspect_store,
    integrity_problems,
    open_readonly,
    read_memories,
    read_store,
    session_prompt_hashes,
    write_store_meta,
)
from memadmin.core.contextdb.reading import SESSION_SPEC
from memadmin.core.contextdb.rows import _convert
from memadmin.core.contextdb.rules import INT_LIST, INTEGER, MEMORY_RULES, OBJECT
from memadmin.core.contextdb.store_meta import _give_up_after
from memadmin.core.hashing import normalized_hash
from tests.upstream_store import (
    LATER_COLUMNS,
    MEMORY_COLUMNS,
    OTHER_PROJECT,
    PROJECT,
    STORE_UUID,
    build_store,
    make_row,
    make_session,
    write_not_sqlite,
    write_sqlite_without_memories,
    write_truncated_copy,
)

ALL_COLUMNS = frozenset(name for name, _ in MEMORY_COLUMNS)


def sha256(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def side_file(path: Path, suffix: str) -> Path:
    return path.with_name(path.name + suffix)


def memory_rows(count: int, **overrides) -> list[dict]:
    return [
        make_row(content=f"Memory {n}: keep releases small.", **overrides) for n in range(count)
    ]


def table_digests(path: Path, *, skip: str = "") -> dict[str, str]:
    """Digest the rows of every ordinary table, and the schema itself."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        names = [
            row[0]
            for row in connection.execute(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
            )
        ]
        digests = {
            name: hashlib.sha256(
                repr(sorted(map(repr, connection.execute(f'SELECT * FROM "{name}"')))).encode()
            ).hexdigest()
            for name in names
            if name != skip
        }
        schema = connection.execute("SELECT * FROM sqlite_schema ORDER BY name").fetchall()
        digests["sqlite_schema"] = hashlib.sha256(repr(schema).encode()).hexdigest()
        return digests
    finally:
        connection.close()


def journal_mode_in_header(path: Path) -> tuple[int, int]:
    """Return the file-format bytes of the header: (2, 2) for WAL, (1, 1) for rollback."""
    header = path.read_bytes()[:20]
    return header[18], header[19]


# The test-support builder


def test_newer_store_has_upstream_schema(tmp_path):
    """A newer store holds every memories column, its indexes, FTS triggers and 94 migrations."""
    path = build_store(tmp_path / "context.db", rows=[make_row()], sessions=[make_session()])
    connection = sqlite3.connect(path)
    names = {row[0] for row in connection.execute("SELECT name FROM sqlite_schema")}
    columns = {row[1] for row in connection.execute("PRAGMA table_info(memories)")}
    migrations = connection.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
    journal = connection.execute("PRAGMA journal_mode").fetchone()[0]
    found = connection.execute(
        "SELECT rowid FROM memories_fts WHERE memories_fts MATCH 'releases'"
    ).fetchall()
    connection.close()
    assert columns == ALL_COLUMNS
    assert {
        "idx_memories_project_status_category",
        "idx_memories_project_status_expires",
        "idx_memories_project_category_hash",
        "memories_fts",
        "memories_ai",
        "memories_ad",
        "memories_au",
        "context_store_meta",
        "session_meta",
        "memory_mutation_log",
        "workspaces",
    } <= names
    assert migrations == 94
    assert journal == "wal"
    assert found == [(1,)]


def test_older_store_lacks_later_columns(tmp_path):
    """An older store lacks the columns upstream added last and records 78 migrations."""
    path = build_store(tmp_path / "context.db", column_set="older", wal=False)
    connection = sqlite3.connect(path)
    columns = {row[1] for row in connection.execute("PRAGMA table_info(memories)")}
    migrations = connection.execute("SELECT count(*) FROM schema_migrations").fetchone()[0]
    connection.close()
    assert columns == ALL_COLUMNS - LATER_COLUMNS
    assert migrations == 78
    assert journal_mode_in_header(path) == (1, 1)


def test_make_row_hashes_its_content():
    """A made row carries the upstream hash of its content."""
    row = make_row(content="  Use   Scripts/release.sh ")
    assert row["normalized_hash"] == normalized_hash("use scripts/release.sh")


# Opening without writing


def test_readonly_connection_refuses_writes(tmp_path):
    """The read-only connection cannot write, even when asked to."""
    connection = open_readonly(build_store(tmp_path / "context.db", rows=[make_row()]))
    try:
        with pytest.raises(sqlite3.OperationalError):
            connection.execute("DELETE FROM memories")
    finally:
        connection.close()


def test_reading_leaves_store_files_unchanged_beside_a_writer(tmp_path):
    """Reading beside an open WAL writer changes neither the database nor its WAL."""
    path = build_store(tmp_path / "context.db", rows=memory_rows(50), sessions=[make_session()])
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("UPDATE memories SET seen_count = seen_count + 1 WHERE id <= 10")
    wal = side_file(path, "-wal")
    before = (sha256(path), sha256(wal))
    assert wal.stat().st_size > 0
    try:
        read = read_store(path)
        info = inspect_store(path)
        hashes = session_prompt_hashes(path)
        after = (sha256(path), sha256(wal))
    finally:
        writer.close()
    assert len(read.memories) == 50
    assert read.memories[0].seen_count == 2
    assert info.store_uuid == STORE_UUID
    assert hashes == {"ses_01JX4N7Q8R2M": "a3f1c9e07b"}
    assert after == before


def test_reading_leaves_a_closed_store_unchanged(tmp_path):
    """With no writer around, reading changes no byte of the database or its journal mode."""
    path = build_store(tmp_path / "context.db", rows=memory_rows(20))
    before = sha256(path)
    read_store(path)
    inspect_store(path)
    assert sha256(path) == before
    assert journal_mode_in_header(path) == (2, 2)


def test_reader_sees_only_committed_rows(tmp_path):
    """A write transaction left open by the agent neither blocks the reader nor shows."""
    path = build_store(tmp_path / "context.db", rows=memory_rows(3))
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM memories")
    try:
        memories = list(read_memories(path))
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert [memory.id for memory in memories] == [1, 2, 3]


def test_memories_and_sessions_come_from_one_snapshot(tmp_path):
    """While a writer commits a memory and a session together, every read sees both or neither."""
    path = build_store(tmp_path / "context.db", rows=memory_rows(200))
    stop = threading.Event()

    def write_pairs():
        writer = sqlite3.connect(path, isolation_level=None, timeout=5)
        n = 0
        while not stop.is_set():
            n += 1
            writer.execute("BEGIN IMMEDIATE")
            row = make_row(content=f"Written while reading {n}")
            names = ", ".join(row)
            writer.execute(
                f"INSERT INTO memories ({names}) VALUES ({', '.join('?' * len(row))})",
                tuple(row.values()),
            )
            writer.execute(
                "INSERT INTO session_meta (session_id, project_path, created_at, updated_at) "
                "VALUES (?, ?, 0, 0)",
                (f"ses_{n}", PROJECT),
            )
            writer.execute("COMMIT")
        writer.close()

    thread = threading.Thread(target=write_pairs)
    thread.start()
    try:
        reads = [read_store(path) for _ in range(5)]
    finally:
        stop.set()
        thread.join()
    for read in reads:
        assert len(read.memories) - 200 == len(read.sessions)


@pytest.mark.parametrize("name", ["context store.db", "odd#name?.db", "100%.db"])
def test_paths_with_uri_characters_open(tmp_path, name):
    """A path holding spaces, '#', '?' or '%' is opened as a file, not misread as a URI."""
    path = build_store(tmp_path / name, rows=[make_row()])
    assert len(read_store(path).memories) == 1


# Files that are not readable stores


def test_missing_file_is_named(tmp_path):
    """A path that does not exist says so, and nothing is created there."""
    with pytest.raises(StoreError, match="no such file"):
        read_store(tmp_path / "absent.db")
    assert not (tmp_path / "absent.db").exists()


def test_directory_is_not_a_file(tmp_path):
    """A directory is refused as not a file."""
    with pytest.raises(StoreError, match="not a file"):
        inspect_store(tmp_path)


@pytest.mark.parametrize("content", [b"", b"hello", b"x" * 5000])
def test_non_sqlite_file_is_refused(tmp_path, content):
    """An empty or foreign file is not a database."""
    path = tmp_path / "context.db"
    path.write_bytes(content)
    with pytest.raises(StoreError, match="file is not a database"):
        read_store(path)


def test_text_file_is_refused(tmp_path):
    """A text file is not a database."""
    with pytest.raises(StoreError, match="file is not a database"):
        open_readonly(write_not_sqlite(tmp_path / "notes.txt"))


def test_sqlite_without_memories_is_not_a_store(tmp_path):
    """An SQLite file without a memories table is not a magic-context store."""
    path = write_sqlite_without_memories(tmp_path / "other.db")
    with pytest.raises(StoreError, match="not a magic-context store: no memories table"):
        read_store(path)
    with pytest.raises(StoreError, match="no memories table"):
        inspect_store(path)


def test_missing_required_columns_are_named(tmp_path):
    """A memories table without required columns names each missing one."""
    path = tmp_path / "context.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE memories (id INTEGER PRIMARY KEY, content TEXT)")
    connection.close()
    with pytest.raises(StoreError, match="lacks required columns") as caught:
        read_store(path)
    for column in REQUIRED_MEMORY_COLUMNS - {"id", "content"}:
        assert column in str(caught.value)
    assert inspect_store(path).columns == {"id", "content"}


def test_locked_store_is_reported(tmp_path):
    """A store held under an exclusive lock is reported as locked, not as damaged."""
    path = build_store(tmp_path / "context.db", wal=False, rows=[make_row()])
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("UPDATE memories SET seen_count = 9")
    try:
        with pytest.raises(StoreError, match="locked"):
            read_store(path, timeout=0.05)
    finally:
        writer.execute("ROLLBACK")
        writer.close()


@pytest.mark.parametrize("keep", [0.2, 0.6, 0.95])
def test_truncated_store_is_reported_damaged(tmp_path, keep):
    """A store cut short is reported as damaged by every reader."""
    source = build_store(tmp_path / "context.db", rows=memory_rows(1500))
    path = write_truncated_copy(source, tmp_path / "cut.db", keep=keep)
    for read in (read_store, inspect_store, integrity_problems):
        with pytest.raises(StoreError, match="damaged"):
            read(path)


def test_sound_store_has_no_integrity_problems(tmp_path):
    """A sound store passes SQLite's quick check."""
    assert integrity_problems(build_store(tmp_path / "context.db", rows=memory_rows(10))) == []


# What a store is


def test_inspect_newer_store(tmp_path):
    """Inspection gives the schema version, migrations, columns, uuid and sorted projects."""
    rows = [make_row(), make_row(project_path=OTHER_PROJECT), make_row(content="Second rule.")]
    info = inspect_store(build_store(tmp_path / "context.db", rows=rows))
    assert info.schema_version == 94
    assert info.migrations == 94
    assert info.columns == ALL_COLUMNS
    assert info.store_uuid == STORE_UUID
    assert info.projects == sorted([PROJECT, OTHER_PROJECT])


def test_inspect_older_store(tmp_path):
    """An older store reports its 78 migrations and its narrower columns."""
    info = inspect_store(build_store(tmp_path / "context.db", column_set="older"))
    assert (info.schema_version, info.migrations) == (78, 78)
    assert info.columns == ALL_COLUMNS - LATER_COLUMNS
    assert info.projects == []


def test_inspect_tolerates_missing_side_tables(tmp_path):
    """Without migrations or meta tables, version and uuid are None."""
    path = tmp_path / "context.db"
    connection = sqlite3.connect(path)
    connection.execute("CREATE TABLE memories (id INTEGER PRIMARY KEY, project_path TEXT)")
    connection.execute("INSERT INTO memories (project_path) VALUES ('git:abc'), (NULL)")
    connection.commit()
    connection.close()
    info = inspect_store(path)
    assert (info.schema_version, info.migrations, info.store_uuid) == (None, 0, None)
    assert info.projects == ["git:abc"]


# Reading memories


def test_clean_rows_read_as_written(tmp_path):
    """Every column of a clean row reads back, JSON columns parsed."""
    row = make_row(
        id=7,
        importance=80,
        status="permanent",
        shareable=1,
        scope="ecosystem",
        source_type="dreamer",
        verification_status="verified",
        verified_at=1_750_000_100_000,
        merged_from="[3, 5]",
        metadata_json='{"archive_reason": "merged"}',
        mural_cue="release",
        mural_cue_rejection_count=2,
    )
    read = read_store(build_store(tmp_path / "context.db", rows=[row]))
    assert read.problems == []
    (memory,) = read.memories
    expected = dict(row, merged_from=(3, 5), metadata={"archive_reason": "merged"})
    del expected["metadata_json"]
    assert dataclasses.asdict(memory) == expected


def test_fast_records_equal_constructed_records(tmp_path):
    """A record read from a store equals one built normally, and is frozen and hashable."""
    row = make_row(id=1)
    (memory,) = read_store(build_store(tmp_path / "context.db", rows=[row])).memories
    values = dict(row, merged_from=None, metadata=None)
    del values["metadata_json"]
    assert memory == UpstreamMemory(**values)
    assert hash(memory) == hash(UpstreamMemory(**values))
    with pytest.raises(dataclasses.FrozenInstanceError):
        memory.content = "changed"


def test_older_store_reads_defaults_for_missing_columns(tmp_path):
    """Columns an older store lacks read as upstream's defaults, or None."""
    path = build_store(tmp_path / "context.db", column_set="older", rows=[make_row()])
    read = read_store(path)
    (memory,) = read.memories
    assert read.problems == []
    assert memory.mural_cue_rejection_count == 0
    assert (memory.verified_at, memory.classified_at, memory.metadata, memory.mural_cue) == (
        None,
        None,
        None,
        None,
    )


def test_missing_optional_columns_read_as_upstream_defaults(tmp_path):
    """A store with only the required columns reads the rest as upstream's DEFAULTs."""
    path = tmp_path / "context.db"
    connection = sqlite3.connect(path)
    required = sorted(REQUIRED_MEMORY_COLUMNS)
    declarations = dict(MEMORY_COLUMNS)
    columns = ", ".join(f"{name} {declarations[name]}" for name in required)
    connection.execute(f"CREATE TABLE memories ({columns})")
    connection.execute(
        f"INSERT INTO memories VALUES ({', '.join('?' * len(required))})",
        tuple(make_row(id=1)[name] for name in required),
    )
    connection.commit()
    connection.close()
    (memory,) = read_memories(path)
    assert (memory.scope, memory.shareable, memory.source_type) == ("project", 0, "historian")
    assert (memory.seen_count, memory.retrieval_count) == (1, 0)
    assert memory.verification_status == "unverified"
    assert memory.first_seen_at is None


BAD_VALUES = [
    # (overrides, column, words in the problem, row kept, value read when kept)
    ({"merged_from": "not json"}, "merged_from", "not valid JSON", True, None),
    ({"merged_from": '{"ids": [1]}'}, "merged_from", "array of integers", True, None),
    ({"merged_from": '[1, "2"]'}, "merged_from", "array of integers", True, None),
    ({"merged_from": "[1.5]"}, "merged_from", "array of integers", True, None),
    ({"merged_from": "[true]"}, "merged_from", "array of integers", True, None),
    ({"metadata_json": "{bad"}, "metadata_json", "not valid JSON", True, None),
    ({"metadata_json": "[1]"}, "metadata_json", "not a JSON object", True, None),
    ({"status": "deleted"}, "status", "not one of active", False, None),
    ({"status": None}, "status", "NULL", False, None),
    ({"scope": "galaxy"}, "scope", "not one of project", True, "project"),
    ({"source_type": "robot"}, "source_type", "not one of historian", True, None),
    ({"verification_status": "maybe"}, "verification_status", "not one of", True, None),
    ({"importance": 0}, "importance", "outside 1..100", True, None),
    ({"importance": 101}, "importance", "outside 1..100", True, None),
    ({"importance": "high"}, "importance", "expected an integer", True, None),
    ({"importance": 50.5}, "importance", "expected an integer", True, None),
    ({"shareable": 2}, "shareable", "not one of 0 | 1", True, 0),
    ({"expires_at": "tomorrow"}, "expires_at", "expected an integer", True, None),
    ({"content": b"bytes", "normalized_hash": "0" * 32}, "content", "expected text", False, None),
    ({"category": b"RULES"}, "category", "expected text", False, None),
]


@pytest.mark.parametrize(("overrides", "column", "words", "kept", "value"), BAD_VALUES)
def test_bad_value_is_collected_not_raised(tmp_path, overrides, column, words, kept, value):
    """A bad value becomes a problem; the row is kept with a safe value or left out."""
    rows = [
        make_row(id=1),
        make_row(**{"id": 2, "content": "The bad one.", **overrides}),
        make_row(id=3, content="Third."),
    ]
    read = read_store(build_store(tmp_path / "context.db", rows=rows))
    (problem,) = read.problems
    assert (problem.table, problem.row_id, problem.column) == ("memories", 2, column)
    assert words in problem.problem
    assert problem.row_skipped is not kept
    ids = [memory.id for memory in read.memories]
    assert ids == ([1, 2, 3] if kept else [1, 3])
    if kept:
        attribute = "metadata" if column == "metadata_json" else column
        assert getattr(read.memories[1], attribute) == value


NOT_NULL_VALUES = [
    ("content", False, None),
    ("project_path", False, None),
    ("normalized_hash", True, None),
    ("created_at", True, None),
    ("scope", True, "project"),
    ("mural_cue_rejection_count", True, 0),
]


@pytest.mark.parametrize(("column", "kept", "value"), NOT_NULL_VALUES)
def test_null_where_upstream_forbids_it(tmp_path, column, kept, value):
    """NULL in a NOT NULL column is a problem; essential columns leave the row out."""
    path = build_store(
        tmp_path / "context.db",
        constraints=False,
        rows=[make_row(**{"id": 1, "normalized_hash": "0" * 32, column: None})],
    )
    read = read_store(path)
    (problem,) = read.problems
    assert problem.column == column
    assert "NULL" in problem.problem
    assert len(read.memories) == int(kept)
    if kept:
        assert getattr(read.memories[0], column) == value


def test_many_problems_in_one_row_are_all_listed(tmp_path):
    """Each bad value of a row is its own problem."""
    row = make_row(id=4, importance=500, merged_from="[", scope="x")
    read = read_store(build_store(tmp_path / "context.db", rows=[row]))
    assert sorted(problem.column for problem in read.problems) == [
        "importance",
        "merged_from",
        "scope",
    ]
    assert len(read.memories) == 1


def test_invalid_utf8_text_is_read_with_replacement(tmp_path):
    """Text that is not UTF-8 is read with replacement characters and reported."""
    path = build_store(tmp_path / "context.db", rows=memory_rows(3))
    connection = sqlite3.connect(path)
    connection.execute("UPDATE memories SET content = CAST(x'41ff42' AS TEXT) WHERE id = 2")
    connection.commit()
    connection.close()
    read = read_store(path)
    assert [memory.id for memory in read.memories] == [1, 2, 3]
    assert read.memories[1].content == "A\ufffdB"
    assert type(read.memories[1].content) is str
    (problem,) = read.problems
    assert (problem.row_id, problem.column) == (2, "content")
    assert "UTF-8" in problem.problem


# One reference for what counts as a bad value: SQLite's checks must agree with it.


def _holds_nul(parsed) -> bool:
    """Return True when a decoded JSON value holds a NUL in any string, keys included."""
    if isinstance(parsed, str):
        return "\x00" in parsed
    if isinstance(parsed, list):
        return any(_holds_nul(item) for item in parsed)
    if isinstance(parsed, dict):
        return any(_holds_nul(key) or _holds_nul(item) for key, item in parsed.items())
    return False


def reference_problem(rule, value) -> bool:
    """Return True when a stored value is one upstream would not write."""
    if value is None:
        return not rule.nullable
    if rule.kind == INTEGER:
        if type(value) is not int:
            return True
    elif type(value) is not str:
        return True
    if isinstance(value, str) and "\x00" in value:
        return True  # memadmin cannot store a NUL character, on either engine
    if rule.allowed and value not in rule.allowed:
        return True
    if rule.bounds and not rule.bounds[0] <= value <= rule.bounds[1]:
        return True
    if rule.kind in (INT_LIST, OBJECT):
        try:
            parsed = json.loads(value, parse_constant=lambda name: 1 / 0)
        except (ValueError, ZeroDivisionError):
            return True
        if _holds_nul(parsed):
            return True  # a NUL spelled as an escape decodes to one
        if rule.kind == OBJECT:
            return not isinstance(parsed, dict)
        return not isinstance(parsed, list) or any(type(item) is not int for item in parsed)
    return False


JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=8,
)
VALUES = (
    st.none()
    | st.integers(-(2**62), 2**62)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.binary(max_size=8)
    | st.sampled_from(["active", "archived", "project", "agent", "verified", "0", "50", "1.0"])
    | JSONISH.map(json.dumps)
    | st.just("[1, 2")
)
CHECKED_RULES = [rule for rule in MEMORY_RULES if rule.name != "id"]


@pytest.fixture(scope="module")
def loose_store(tmp_path_factory):
    return build_store(
        tmp_path_factory.mktemp("loose") / "context.db", constraints=False, fts=False
    )


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rule=st.sampled_from(CHECKED_RULES), value=VALUES)
def test_sqlite_checks_agree_with_the_reference(loose_store, rule, value):
    """A value is reported exactly when the plain Python reference calls it bad."""
    connection = sqlite3.connect(loose_store, isolation_level=None)
    connection.execute("DELETE FROM memories")
    row = make_row(**{"id": 1, "normalized_hash": "0" * 32, rule.name: value})
    connection.execute(
        f"INSERT INTO memories ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",
        tuple(row.values()),
    )
    stored = connection.execute(f"SELECT {rule.name} FROM memories").fetchone()[0]
    connection.close()
    problems = read_store(loose_store).problems
    assert [problem.column for problem in problems] == (
        [rule.name] if reference_problem(rule, stored) else []
    ), (stored, problems)


# Sessions


def test_sessions_are_read_with_their_block_ids(tmp_path):
    """Sessions come back ordered by id, block ids parsed."""
    sessions = [
        make_session(session_id="ses_b", memory_block_ids="[4, 9]"),
        make_session(session_id="ses_a", system_prompt_hash=None, memory_block_ids=None),
    ]
    read = read_store(build_store(tmp_path / "context.db", sessions=sessions))
    assert [session.session_id for session in read.sessions] == ["ses_a", "ses_b"]
    assert read.sessions[1].memory_block_ids == (4, 9)
    assert read.sessions[0].system_prompt_hash is None
    assert read.problems == []


def test_bad_session_block_ids_are_a_problem(tmp_path):
    """Block ids that are not a JSON array of integers are reported against the session."""
    sessions = [make_session(session_id="ses_x", memory_block_ids='["4"]')]
    read = read_store(build_store(tmp_path / "context.db", sessions=sessions))
    (problem,) = read.problems
    assert (problem.table, problem.row_id, problem.column) == (
        "session_meta",
        "ses_x",
        "memory_block_ids",
    )
    assert read.sessions[0].memory_block_ids is None


def test_store_without_session_meta_has_no_sessions(tmp_path):
    """A store lacking session_meta reads with no sessions and no hashes."""
    path = build_store(tmp_path / "context.db", rows=[make_row()])
    connection = sqlite3.connect(path)
    connection.execute("DROP TABLE session_meta")
    connection.commit()
    connection.close()
    read = read_store(path)
    assert (read.sessions, read.problems) == ([], [])
    assert session_prompt_hashes(path) == {}


def test_session_meta_with_other_columns(tmp_path):
    """Missing session columns read as None; without session_id no session can be read."""
    path = build_store(tmp_path / "context.db")
    connection = sqlite3.connect(path)
    connection.execute("DROP TABLE session_meta")
    connection.execute("CREATE TABLE session_meta (session_id TEXT PRIMARY KEY, other TEXT)")
    connection.execute("INSERT INTO session_meta VALUES ('ses_1', 'x')")
    connection.commit()
    read = read_store(path)
    assert read.sessions[0].system_prompt_hash is None
    assert session_prompt_hashes(path) == {}
    connection.execute("DROP TABLE session_meta")
    connection.execute("CREATE TABLE session_meta (id TEXT, system_prompt_hash TEXT)")
    connection.commit()
    connection.close()
    read = read_store(path)
    assert read.sessions == []
    assert [problem.column for problem in read.problems] == ["session_id"]


def test_prompt_hashes_from_an_open_connection(tmp_path):
    """Prompt hashes can be read through a connection already open, skipping sessions without one."""
    sessions = [
        make_session(session_id="ses_1", system_prompt_hash="h1"),
        make_session(session_id="ses_2", system_prompt_hash=None),
    ]
    connection = open_readonly(build_store(tmp_path / "context.db", sessions=sessions))
    try:
        assert session_prompt_hashes(connection) == {"ses_1": "h1"}
    finally:
        connection.close()


# Size


def test_hundred_thousand_memories_are_read(tmp_path):
    """A store of 100,000 memories is read whole."""
    rows = [
        make_row(
            content=f"Memory {n} about releases.",
            importance=n % 100 + 1,
            merged_from="[1, 2]" if n % 50 == 0 else None,
        )
        for n in range(100_000)
    ]
    path = build_store(tmp_path / "context.db", rows=rows, fts=False)
    started = time.perf_counter()
    read = read_store(path)
    elapsed = time.perf_counter() - started
    print(f"\nread_store: 100,000 memories in {elapsed:.2f} s")
    assert len(read.memories) == 100_000
    assert read.problems == []
    assert read.memories[50].merged_from == (1, 2)


# Writing context_store_meta


def test_write_store_meta_upserts_only_its_keys(tmp_path):
    """Writing keys changes context_store_meta alone and takes a backup first."""
    path = build_store(tmp_path / "context.db", rows=memory_rows(30), sessions=[make_session()])
    connection = sqlite3.connect(path)
    connection.execute("INSERT INTO context_store_meta VALUES ('memadmin.criteria', 'old')")
    connection.commit()
    connection.close()
    before = table_digests(path, skip="context_store_meta")
    backup = write_store_meta(
        path,
        {"memadmin.criteria": '{"PROJECT_RULES": "v2"}', "memadmin.version": "1"},
        backup_dir=tmp_path / "backups",
    )
    assert table_digests(path, skip="context_store_meta") == before
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    meta = dict(connection.execute("SELECT key, value FROM context_store_meta"))
    connection.close()
    assert meta == {
        "store_uuid": STORE_UUID,
        "memadmin.criteria": '{"PROJECT_RULES": "v2"}',
        "memadmin.version": "1",
    }
    assert journal_mode_in_header(path) == (2, 2)
    assert backup.parent == tmp_path / "backups"
    copy = sqlite3.connect(backup)
    assert dict(copy.execute("SELECT key, value FROM context_store_meta")) == {
        "store_uuid": STORE_UUID,
        "memadmin.criteria": "old",
    }
    assert copy.execute("SELECT count(*) FROM memories").fetchone() == (30,)
    copy.close()


def test_backup_holds_uncheckpointed_writes(tmp_path):
    """The backup includes what the agent committed into the WAL but never checkpointed."""
    path = build_store(tmp_path / "context.db", rows=memory_rows(5))
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("UPDATE memories SET content = 'Only in the WAL.' WHERE id = 1")
    try:
        backup = write_store_meta(path, {"memadmin.k": "v"}, backup_dir=tmp_path / "b")
    finally:
        writer.close()
    (memory, *_) = read_memories(backup)
    assert memory.content == "Only in the WAL."


def test_backups_never_overwrite_each_other(tmp_path):
    """Two writes in quick succession leave two backups."""
    path = build_store(tmp_path / "context.db")
    first = write_store_meta(path, {"memadmin.k": "1"}, backup_dir=tmp_path / "b")
    second = write_store_meta(path, {"memadmin.k": "2"}, backup_dir=tmp_path / "b")
    assert first != second
    assert first.exists() and second.exists()


def test_write_refuses_a_file_that_is_not_a_store(tmp_path):
    """A file without memories is refused untouched, and no backup is made."""
    path = write_sqlite_without_memories(tmp_path / "other.db")
    before = sha256(path)
    with pytest.raises(StoreError, match="no memories table"):
        write_store_meta(path, {"memadmin.k": "v"}, backup_dir=tmp_path / "b")
    assert sha256(path) == before
    assert not (tmp_path / "b").exists()


def test_write_refuses_a_store_without_meta_table(tmp_path):
    """A store without context_store_meta is refused; the table is never created."""
    path = build_store(tmp_path / "context.db")
    connection = sqlite3.connect(path)
    connection.execute("DROP TABLE context_store_meta")
    connection.commit()
    connection.close()
    with pytest.raises(StoreError, match="no context_store_meta table"):
        write_store_meta(path, {"memadmin.k": "v"}, backup_dir=tmp_path / "b")
    with pytest.raises(StoreError, match="no such file"):
        write_store_meta(tmp_path / "absent.db", {"memadmin.k": "v"}, backup_dir=tmp_path / "b")
    assert not (tmp_path / "absent.db").exists()


@pytest.mark.parametrize(
    ("entries", "words"),
    [
        ({}, "no entries"),
        ({"store_uuid": "x"}, "belongs to upstream"),
        ({"memadmin.k": 3}, "not a string"),
        ({"": "v"}, "non-empty"),
    ],
)
def test_write_refuses_bad_entries(tmp_path, entries, words):
    """Entries that are not text, or that name upstream's own key, are refused."""
    path = build_store(tmp_path / "context.db")
    before = sha256(path)
    with pytest.raises(StoreError, match=words):
        write_store_meta(path, entries, backup_dir=tmp_path / "b")
    assert sha256(path) == before


def test_write_waits_for_the_agent_then_reports_locked(tmp_path):
    """While the agent holds the write lock, writing fails as locked and changes nothing."""
    path = build_store(tmp_path / "context.db")
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StoreError, match="locked"):
            write_store_meta(path, {"memadmin.k": "v"}, backup_dir=tmp_path / "b", timeout=0.05)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    connection = open_readonly(path)
    keys = [row[0] for row in connection.execute("SELECT key FROM context_store_meta")]
    connection.close()
    assert keys == ["store_uuid"]


def test_backup_kept_busy_gives_up():
    """A backup that stays busy past its timeout stops with a locked error instead of spinning."""
    progress = _give_up_after(0.0, Path("context.db"))
    progress(sqlite3.SQLITE_OK, 5, 10)
    with pytest.raises(StoreError, match="locked"):
        progress(sqlite3.SQLITE_BUSY, 5, 10)


def test_json_sqlite_accepts_but_python_cannot_parse_is_a_problem():
    """JSON that an SQLite of 3.42 to 3.44 calls valid (JSON5) but Python cannot parse is reported."""
    problems = []
    session = _convert(("ses_1", PROJECT, "h", "[1,]", 5, ""), SESSION_SPEC, problems)
    assert session.memory_block_ids is None
    assert [(problem.column, problem.row_skipped) for problem in problems] == [
        ("memory_block_ids", False)
    ]

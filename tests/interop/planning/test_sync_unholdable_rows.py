"""Rows memadmin cannot hold (NUL bytes, over-long text) refuse the sync, named, on both engines.

PostgreSQL cannot store a NUL character in text or JSON; SQLite can. So that both engines
behave the same, the reader names a NUL anywhere in a text column as a problem, and the sync
refuses a text longer than a memory may hold instead of importing a row nobody can save.
"""

import pytest

from memadmin.interop.models import SyncRun, UpstreamSession
from memadmin.interop.writing.services import SyncRefused, context_db_sync
from memadmin.memories.models import Memory
from memadmin.memories.services import CONTENT_MAX_CHARS
from tests.interop.conftest import rows_for
from tests.upstream_store import make_row, make_session

pytestmark = pytest.mark.django_db


def refusal(path) -> SyncRefused:
    with pytest.raises(SyncRefused) as caught:
        context_db_sync(path=path)
    assert Memory.objects.count() == 0
    assert SyncRun.objects.get().outcome == "refused"
    return caught.value


@pytest.mark.parametrize("column", ["content", "category", "source_session_id", "project_path"])
def test_nul_in_a_text_column_is_refused_by_row_and_column(store, column):
    """A NUL byte in any text column of a memory names the row and column; nothing is imported."""
    row = make_row(content="Releases need a tag.")
    row[column] = f"{row[column]}\x00tail"
    error = refusal(store(rows=[*rows_for(2), row]))
    assert any(line.startswith(f"memories row 3, column {column}: ") for line in error.messages)
    assert "NUL" in "\n".join(error.messages)


def test_nul_escape_in_metadata_json_is_refused(store):
    """JSON text decoding to a NUL character is refused too: PostgreSQL's JSON cannot hold it."""
    row = make_row(content="Has metadata.", metadata_json='{"archive_reason": "a\\u0000b"}')
    error = refusal(store(rows=[row]))
    assert error.messages[0].startswith("memories row 1, column metadata_json: ")
    assert "NUL" in error.messages[0]


def test_nul_in_a_session_is_a_warning_and_the_value_left_out(store):
    """A session's bad value never blocks the memories: the value is dropped, with a warning."""
    path = store(rows=rows_for(1), sessions=[make_session(system_prompt_hash="ab\x00cd")])
    run = context_db_sync(path=path)
    assert run.outcome == "synced"
    assert UpstreamSession.objects.get().system_prompt_hash == ""
    assert any(w["column"] == "system_prompt_hash" for w in run.warnings)


def test_text_over_the_limit_is_refused(store):
    """A text longer than a memory may hold is named, so no row arrives that cannot be saved."""
    long = make_row(content="x" * (CONTENT_MAX_CHARS + 1))
    error = refusal(store(rows=[*rows_for(1), long]))
    assert error.messages == [
        f"memories row 2, column content: is {CONTENT_MAX_CHARS + 1} characters long; "
        f"a memory holds at most {CONTENT_MAX_CHARS}"
    ]


def test_text_at_the_limit_is_imported(store):
    """Exactly the limit is fine."""
    run = context_db_sync(path=store(rows=[make_row(content="y" * CONTENT_MAX_CHARS)]))
    assert (run.outcome, run.new) == ("synced", 1)

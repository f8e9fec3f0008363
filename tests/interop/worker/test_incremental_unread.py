"""An incremental sync keeps the store's unread values by looking again only at the rows it read."""

import sqlite3

import pytest

from memadmin.interop.models import UnreadValue
from memadmin.interop.writing.services import context_db_sync
from tests.interop.worker.test_incremental_sync import LATER, spread_rows

pytestmark = pytest.mark.django_db


def _unread_ids() -> dict[int, str]:
    return dict(UnreadValue.objects.values_list("upstream_id", "column"))


def test_unread_values_follow_changed_and_deleted_rows_and_stay_for_the_others(store):
    """A row turning unreadable gains its value, a deleted one loses it, an untouched one keeps it."""
    rows = spread_rows(20)
    for row in (rows[2], rows[4]):  # ids 3 and 5
        row["source_type"] = None
    path = store(rows=rows)
    context_db_sync(path=path)
    assert _unread_ids() == {3: "source_type", 5: "source_type"}
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("UPDATE memories SET source_type = NULL, updated_at = ? WHERE id = 8", (LATER,))
    writer.execute("DELETE FROM memories WHERE id = 3")
    writer.close()
    run = context_db_sync(path=path, incremental=True, record_empty=False)
    assert (run.changed, run.gone) == (1, 1)
    assert _unread_ids() == {5: "source_type", 8: "source_type"}
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute(
        "UPDATE memories SET source_type = 'user', updated_at = ? WHERE id = 8", (LATER + 1,)
    )
    writer.close()
    context_db_sync(path=path, incremental=True, record_empty=False)
    assert _unread_ids() == {5: "source_type"}
    context_db_sync(path=path)  # a full sync finds the same
    assert _unread_ids() == {5: "source_type"}

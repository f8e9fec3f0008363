"""The drift comparison between a snapshot and a live composite, as plain data."""

from memadmin.composites.drift import drift, has_drifted


def item(id, role="member", digest="d"):
    return {"id": id, "display_id": id + 100, "role": role, "digest": digest + str(id)}


FROZEN = [item(1, "head"), item(2), item(3)]
CURRENT = {i: {"digest": f"d{i}", "status": "active"} for i in (1, 2, 3)}


def test_identical_sides_have_no_drift():
    """The same ids in the same places with the same texts: nothing changed."""
    rows = drift(FROZEN, FROZEN, CURRENT)
    assert not has_drifted(rows)
    assert [row.display_id for row in rows] == [101, 102, 103]


def test_a_deleted_memory_is_gone():
    """A memory that no longer exists is 'gone', not merely removed."""
    rows = drift(FROZEN, [item(1, "head"), item(3)], {1: CURRENT[1], 3: CURRENT[3]})
    assert rows[1].changes == ("gone",)
    assert rows[2].changes == ("moved",)


def test_an_archived_memory_is_marked():
    """Archiving shows even when the member is still in place."""
    current = {**CURRENT, 2: {"digest": "d2", "status": "archived"}}
    assert drift(FROZEN, FROZEN, current)[1].changes == ("archived",)


def test_a_head_that_became_a_member_has_moved():
    """A change of role counts as a move."""
    live = [item(2, "head"), item(1), item(3)]
    rows = drift(FROZEN, live, CURRENT)
    assert rows[0].changes == ("moved",)
    assert rows[0].live_position == 1


def test_without_a_live_composite_everything_is_removed():
    """A deleted composite leaves every frozen memory removed."""
    assert [row.changes for row in drift(FROZEN, None, CURRENT)] == [("removed",)] * 3


def test_added_members_follow_the_frozen_rows():
    """Live members missing from the snapshot come last, marked added."""
    rows = drift(FROZEN, [*FROZEN, item(9)], CURRENT)
    assert rows[-1].changes == ("added",)
    assert (rows[-1].frozen_position, rows[-1].live_position) == (None, 3)

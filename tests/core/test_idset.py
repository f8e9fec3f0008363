"""The compact set of a store's ids answers as a set of the same ids would."""

from memadmin.core.contextdb.idset import IdSet


def test_membership_length_iteration_and_equality_match_a_set():
    ids = IdSet([9, 3, 3, 7, 1])
    assert len(ids) == 4
    assert list(ids) == [1, 3, 7, 9]
    assert all(type(i) is int for i in ids)
    assert 7 in ids and 1 in ids and 9 in ids
    assert 0 not in ids and 8 not in ids and 10 not in ids
    assert "7" not in ids and None not in ids and True not in ids
    assert ids == {1, 3, 7, 9} and ids != {1, 3, 7}
    assert 5 not in IdSet()


def test_union_and_missing():
    ids = IdSet([1, 3])
    assert ids | () is ids
    assert list(ids | {2, 3}) == [1, 2, 3]
    assert list(ids) == [1, 3]  # unchanged
    assert ids.missing([3, 4, 1, 6]) == [4, 6]
    assert ids.missing([]) == []

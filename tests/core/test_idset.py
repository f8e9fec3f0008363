"""The compact set of a store's ids answers as a set of the same ids would."""

import pytest

from memadmin.core.contextdb.idset import IdMap, IdSet


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


def test_the_map_answers_as_a_dict_built_from_the_same_pairs():
    pairs = IdMap([5, 1, 5, 9], [50, 10, 51, 90])  # a later pair wins, as in a dict
    assert (pairs[5], pairs[1], pairs[9]) == (51, 10, 90)
    assert type(pairs[5]) is int
    assert pairs.get(2) is None and 2 not in pairs and 9 in pairs
    pairs.add([2, 9], [20, 91])
    assert (pairs[2], pairs[9], len(pairs)) == (20, 91, 4)
    pairs[9] = 92
    pairs[7] = 70
    assert (pairs[9], pairs[7], len(pairs)) == (92, 70, 5)
    with pytest.raises(KeyError):
        pairs[3]

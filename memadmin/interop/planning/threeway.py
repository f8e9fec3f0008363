"""The three-way part of a sync plan: who changed a row since its base.

Memadmin keeps, per synced memory, a base: the digest of the curated values the store held
when memadmin last read or wrote the row (`memadmin.core.contextdb.writing.curated_digest`,
the same digest whichever side the values come from). Against it a sync tells apart a row
only the store changed (pulled), one only memadmin changed (pushed) and one both changed
(a conflict, neither side overwritten).
"""

from dataclasses import dataclass

from memadmin.core.contextdb.writing import CURATED_COLUMNS, curated_digest

from .values import FIELDS, GONE_AT, PROJECT

# The curated values of a values tuple, by store column (CURATED_COLUMNS: one list for both).
_CURATED_AT = {
    name: PROJECT if name == "project_path" else 1 + FIELDS.index(name) for name in CURATED_COLUMNS
}


def values_digest(values: tuple) -> str:
    """Return the curated digest of a values tuple (the same as of the store's row)."""
    return curated_digest({name: values[index] for name, index in _CURATED_AT.items()})


def values_curated(values: tuple) -> dict:
    """Return the curated values of a values tuple by store column."""
    return {name: values[index] for name, index in _CURATED_AT.items()}


@dataclass(frozen=True)
class Divergence:
    """A row memadmin changed since its base: pushed (store unchanged) or a conflict."""

    pk: int
    upstream_id: int | None
    store: tuple | None
    memadmin: tuple


def diverged(plan, row, upstream_id: int, values: tuple, base) -> bool:
    """Return True when memadmin changed the row since its base: record a push or conflict.

    Only the store changed (or no base is kept): False, the row is pulled. Only memadmin
    changed: a push. Both changed to the same curated values: False, pulled. Both changed
    otherwise: a conflict, neither side written.
    """
    if not base or row.values[GONE_AT] is not None:
        return False
    mine = values_digest(row.values)
    if mine == base:
        return False
    theirs = values_digest(values)
    if theirs == mine:
        return False
    divergence = Divergence(row.pk, upstream_id, values, row.values)
    (plan.pushes if theirs == base else plan.conflicts).append(divergence)
    return True


def new_in_memadmin(plan, rows, bases, adopted: set[int]) -> None:
    """Push the memories written in memadmin for the store that it does not hold yet."""
    for row in rows:
        if row.upstream_id is None and bases.get(row.pk) == "" and row.pk not in adopted:
            plan.pushes.append(Divergence(row.pk, None, None, row.values))

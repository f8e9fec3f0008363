"""Saves made while a sync was planned: which rows of the plan they moved, and leaving those out.

A sync plans from memadmin's rows as they were at a mark (the newest memory version then,
`history_mark`), outside any transaction, so people keep saving meanwhile. Its last
transaction calls `moved_leave_out` once, which asks which memories someone else saved since
the mark, and which of those the plan writes (changes, gone rows, pushes, conflicts, new
bases). None: the saves touched rows the plan leaves alone, and it is written as it is.
Some: the plan is made again (`Moved`, caught by `writing.services`), and when saves keep
moving its rows, the last attempt leaves those rows out, as the person left them, and
writes the rest: a sync is never starved by people's saves, and never writes over one. The
next sync compares the rows left out again.

The answer holds until the last transaction commits because no save can come in between:
the transaction holds every other writer of a memory (`lock.writers_held`).
"""

from collections.abc import Collection

from django.db.models import Max

from memadmin.audit.context import current_change_id
from memadmin.core.contextdb import RowProblem
from memadmin.memories.models import Memory

from ..planning.plan import SyncPlan
from ..planning.values import PROJECT
from .pushes import Pushed

LEFT_OUT = "saved in memadmin while the sync ran; left as saved, the next sync compares it again"


class Moved(Exception):
    """A memory the plan writes was saved between the plan and its last transaction."""


def history_mark() -> int:
    """Return the newest memory version's id: what a plan is made from."""
    return Memory.history.aggregate(mark=Max("history_id"))["mark"] or 0


def moved_leave_out(
    plan: SyncPlan,
    pushed: Pushed,
    *,
    mark: int,
    project_pks: Collection[int],
    pk_of_upstream,
    last_attempt: bool,
) -> list[RowProblem]:
    """Leave out of the plan the rows it writes that someone saved since ``mark``.

    Return a warning for each row left out (none when the saves moved no row the plan
    writes). Raise Moved instead, leaving the plan as it is, unless ``last_attempt``: the
    sync plans again. Runs inside the sync's last transaction; the plan and ``pushed`` are
    changed in place.
    """
    moved = _moved_since(mark, project_pks)
    if moved:  # a save to a row the plan leaves alone changes nothing for it
        moved &= _plan_touches(plan, pk_of_upstream)
    if not moved:
        return []
    if not last_attempt:
        raise Moved
    return _plan_leave_out(plan, pushed, moved, pk_of_upstream)


def _moved_since(mark: int, project_pks: Collection[int]) -> set[int]:
    """Return the memories of these projects someone else saved after ``mark``."""
    return set(
        Memory.history.filter(history_id__gt=mark, project_id__in=project_pks)
        .exclude(history_change_id=current_change_id())
        .values_list("id", flat=True)
    )


def _pk_of(pk_of_upstream, upstream_id: int) -> int | None:
    try:
        return pk_of_upstream[upstream_id]
    except KeyError:
        return None


def _plan_touches(plan: SyncPlan, pk_of_upstream) -> set[int]:
    """Return the memories the plan's last transaction writes: values, gone marks or bases."""
    touched = {update.pk for update in plan.updates}
    touched |= {row.pk for row in plan.gone}
    touched |= {divergence.pk for divergence in plan.pushes + plan.conflicts}
    touched |= {_pk_of(pk_of_upstream, upstream_id) for upstream_id in plan.bases}
    touched.discard(None)
    return touched


def _plan_leave_out(plan: SyncPlan, pushed: Pushed, pks: set[int], pk_of_upstream) -> list:
    """Take the memories ``pks`` out of the plan, in place; return a warning for each."""
    for update in plan.updates:
        if update.pk in pks:
            plan.counts[update.new[PROJECT]].changed -= 1
    for row in plan.gone:
        if row.pk in pks:
            plan.counts[row.values[PROJECT]].gone -= 1
    plan.updates[:] = [update for update in plan.updates if update.pk not in pks]
    plan.gone[:] = [row for row in plan.gone if row.pk not in pks]
    plan.pushes[:] = [divergence for divergence in plan.pushes if divergence.pk not in pks]
    plan.conflicts[:] = [divergence for divergence in plan.conflicts if divergence.pk not in pks]
    upstream_of = {}
    for upstream_id in list(plan.bases):
        pk = _pk_of(pk_of_upstream, upstream_id)
        upstream_of[pk] = upstream_id
        if pk in pks:
            del plan.bases[upstream_id]
    for pk in pks:
        pushed.memories.pop(pk, None)
    return [RowProblem("memories", upstream_of.get(pk, pk), "", LEFT_OUT) for pk in sorted(pks)]

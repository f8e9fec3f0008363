"""What the memory list's bulk bar offers: its actions, which of them a selection allows, and
why restore is withheld.

The actions themselves are planned and applied by curation (`memadmin/curation/bulk_services.py`),
above composites, since one of them adds to a composite.
"""

from collections.abc import Sequence

from .models import Memory

ACTIONS = {
    "archive": "archive",
    "restore": "restore",
    "move": "move to another category",
    "add": "add to a composite",
}

# Offered beside ACTIONS; the merge page (`memadmin/curation/merge_services.py`) carries it out.
MERGE = "merge"


def actions_allowed(
    memories: Sequence[Memory], *, chosen: bool, can_move: bool = True
) -> list[str]:
    """Return the actions (ACTIONS, then MERGE) that could change some of `memories`.

    `chosen` says they are the selection itself; otherwise they are the rows a selection is
    taken from (a page of the list), and merge is offered if two of them could merge. An
    action every memory would refuse or leave as it is is not offered; `can_move` is False
    when there is no category to move to.
    """
    live = [memory for memory in memories if memory.status != Memory.Status.ARCHIVED]
    allowed = []
    if live:
        allowed.append("archive")
    if any(m.status == Memory.Status.ARCHIVED and m.superseded_by_id is None for m in memories):
        allowed.append("restore")
    if memories and can_move:
        allowed.append("move")
    if live:
        allowed.append("add")
    groups = {(memory.project_id, memory.category) for memory in live}
    if chosen:
        mergeable = len(live) == len(memories) >= 2 and len(groups) == 1
    else:
        mergeable = len(groups) < len(live)  # two live rows share project and category
    if mergeable:
        allowed.append(MERGE)
    return allowed


def superseded_reasons(memories: Sequence[Memory]) -> dict[int, str]:
    """Return, for each superseded memory, why restoring it is refused and what to do instead.

    Its successor is named by the id the agent sees: "merged into #9: undo the merge from
    #9's page instead", "fragmented into details under #9: they hold its text", or
    "superseded by #9: the newer memory holds what it said" (the agent's own supersede).
    """
    superseded = [memory for memory in memories if memory.superseded_by_id is not None]
    successors = dict(
        Memory.objects.filter(
            pk__in={memory.superseded_by_id for memory in superseded}
        ).values_list("pk", "upstream_id")
    )
    reasons = {}
    for memory in superseded:
        upstream_id = successors.get(memory.superseded_by_id)
        successor = f"#{memory.superseded_by_id if upstream_id is None else upstream_id}"
        metadata = memory.metadata if isinstance(memory.metadata, dict) else {}
        if metadata.get("fragmented_into") is not None:
            reasons[memory.pk] = f"fragmented into details under {successor}: they hold its text"
        elif str(metadata.get("archive_reason", "")).startswith("merged into"):
            reasons[memory.pk] = (
                f"merged into {successor}: undo the merge from {successor}'s page instead"
            )
        else:
            reasons[memory.pk] = f"superseded by {successor}: the newer memory holds what it said"
    return reasons


WITHHELD_NAMED = 3  # how many superseded memories the note names, before "and n more"


def restore_withheld(memories: Sequence[Memory]) -> str:
    """Say why restore is not offered for memories (the selection, or a page's rows) whose
    archived ones were all superseded ("" if restore is offered, or none was superseded):
    each comes back another way, or not at all, as `superseded_reasons` says."""
    superseded = [m for m in memories if m.status == Memory.Status.ARCHIVED and m.superseded_by_id]
    restorable = any(
        m.status == Memory.Status.ARCHIVED and m.superseded_by_id is None for m in memories
    )
    if not superseded or restorable:
        return ""
    reasons = superseded_reasons(superseded[:WITHHELD_NAMED])
    said = [f"#{m.display_id} was {reasons[m.pk]}" for m in superseded[:WITHHELD_NAMED]]
    more = len(superseded) - WITHHELD_NAMED
    return (
        "Restore is not offered: "
        + "; ".join(said)
        + (f"; and {more} more like {'it' if more == 1 else 'them'}" if more > 0 else "")
        + "."
    )

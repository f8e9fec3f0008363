"""Where a live composite has drifted from a frozen reference set, as plain data.

Items on both sides are dicts `{"id", "display_id", "role", "digest"}`, head first then the
members in order, as a reference set stores them. `current` maps each frozen id that still
exists to `{"digest", "status"}` of the memory today.
"""

from dataclasses import dataclass
from typing import Literal

Change = Literal["gone", "removed", "moved", "edited", "archived", "added"]


@dataclass(frozen=True, slots=True)
class DriftRow:
    """One memory of the snapshot or of the live composite, and how it changed.

    `changes` is empty for a memory that is where it was, with the same text. Positions
    count from 0 in the item list (the head is 0); None where that side lacks the memory.
    """

    id: int
    display_id: int
    role: str
    frozen_position: int | None
    live_position: int | None
    changes: tuple[Change, ...]

    @property
    def unchanged(self) -> bool:
        """Return True if the memory is where it was, with the same text."""
        return not self.changes


def drift(frozen: list[dict], live: list[dict] | None, current: dict[int, dict]) -> list[DriftRow]:
    """Return a row per frozen item in snapshot order, then a row per live item added since.

    `live` is None when the composite itself is gone: every frozen item is then removed.
    """
    live = live or []
    live_at = {item["id"]: (index, item) for index, item in enumerate(live)}
    rows = []
    for index, item in enumerate(frozen):
        now = current.get(item["id"])
        position, live_item = live_at.get(item["id"], (None, None))
        changes: list[Change] = []
        if now is None:
            changes.append("gone")
        else:
            if live_item is None:
                changes.append("removed")
            elif position != index or live_item["role"] != item["role"]:
                changes.append("moved")
            if now["digest"] != item["digest"]:
                changes.append("edited")
            if now["status"] == "archived":
                changes.append("archived")
        rows.append(
            DriftRow(
                id=item["id"],
                display_id=item["display_id"],
                role=item["role"],
                frozen_position=index,
                live_position=position,
                changes=tuple(changes),
            )
        )
    frozen_ids = {item["id"] for item in frozen}
    rows.extend(
        DriftRow(
            id=item["id"],
            display_id=item["display_id"],
            role=item["role"],
            frozen_position=None,
            live_position=index,
            changes=("added",),
        )
        for index, item in enumerate(live)
        if item["id"] not in frozen_ids
    )
    return rows


def has_drifted(rows: list[DriftRow]) -> bool:
    """Return True if any row records a change."""
    return any(row.changes for row in rows)

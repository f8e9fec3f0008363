"""The memories' side of the taxonomy's hook (`taxonomy/memory_hooks.py`).

Registered in `MemoriesConfig.ready`: the taxonomy counts, moves and writes memories through
it, since it sits below memories and cannot import them.
"""

from django.db.models import Count, OuterRef, Subquery
from simple_history.utils import bulk_update_with_history

from memadmin.audit.actors import as_actor
from memadmin.audit.services import audit_record
from memadmin.core.clock import now_ms
from memadmin.projects.store import StoreChange, StoreRefused, store_backend

from .models import Memory
from .selectors import LIVE_STATUSES
from .services import memory_write_or_bump


class TaxonomySide:
    StoreRefused = StoreRefused

    def count_per_category(self, *, live_only: bool = False) -> Subquery:
        """Return the number of memories of OuterRef("project") in category OuterRef("name"):
        every status, or (`live_only`) active and permanent ones, as the overview counts."""
        rows = Memory.objects.filter(project=OuterRef("project"), category=OuterRef("name"))
        if live_only:
            rows = rows.filter(status__in=LIVE_STATUSES)
        return Subquery(rows.order_by().values("category").annotate(n=Count("id")).values("n"))

    def hashes_in(self, *, project, category: str, by_id: bool) -> list[tuple[str, str]]:
        """Return (display id, normalized hash) of the category's memories.

        In id order if ``by_id``, else in the list's order (newest first).
        """
        rows = Memory.objects.filter(project=project, category=category)
        if by_id:
            rows = rows.order_by("id")
        return [
            (m.display_id, m.normalized_hash)
            for m in rows.only("id", "upstream_id", "normalized_hash")
        ]

    def move(self, *, project, old: str, new: str, actor, reason: str) -> int:
        """Move the memories of category ``old`` to ``new`` (store first); return how many."""
        now = now_ms()
        memories = list(Memory.objects.select_for_update().filter(project=project, category=old))
        for memory in memories:
            memory.category = new
            memory.updated_at = max(now, memory.updated_at + 1)
        resolved = as_actor(actor)
        acting_actor = {"history_actor": resolved.label, "history_actor_kind": resolved.kind}
        # A synced project's store takes the moves first, or the upgrade writes nothing.
        receipt = store_backend().write_memories(
            project=project, changes=[StoreChange(m) for m in memories]
        )
        bulk_update_with_history(
            memories,
            Memory,
            ["category", "updated_at"],
            default_change_reason=reason,
            custom_historical_attrs=acting_actor,
        )
        receipt.settle()
        for memory in memories:
            audit_record(
                action="recategorised",
                target=memory,
                project=project,
                category=new,
                changes={"category": [old, new]},
            )
        return len(memories)

    def write_or_bump(self, *, project, category: str, content: str, actor, reason: str):
        """Write a historian memory as upstream's `write` does; return (memory, created)."""
        return memory_write_or_bump(
            project=project,
            category=category,
            content=content,
            actor=actor,
            source_type=Memory.SourceType.HISTORIAN,
            reason=reason,
        )

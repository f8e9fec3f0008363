"""The hook through which the taxonomy reaches the memories filed in its categories.

The taxonomy app sits below memories, so it cannot import them. Memories register their
side here when the app registry is ready (`MemoriesConfig.ready`, `memories/taxonomy_side.py`),
as composites fill `memories/relation_hooks.py`. The category list counts memories through
`count_per_category`, a pack upgrade finds collisions through `hashes_in` and moves memories
through `move`, the facts checker writes through `write_or_bump`, and the pack page knows a
store's refusal by `StoreRefused`.
"""

from typing import Protocol


class MemoryHook(Protocol):
    StoreRefused: type[Exception]

    def count_per_category(self, *, live_only: bool = False): ...

    def hashes_in(self, *, project, category: str, by_id: bool) -> list[tuple[str, str]]: ...

    def move(self, *, project, old: str, new: str, actor, reason: str) -> int: ...

    def write_or_bump(self, *, project, category: str, content: str, actor, reason: str): ...


_hook: MemoryHook | None = None


def register(hook: MemoryHook) -> None:
    """Install the memories' side of the taxonomy (called once, from an app's `ready`)."""
    global _hook
    _hook = hook


def memories() -> MemoryHook:
    """Return the registered memories' side (memadmin.memories is always installed)."""
    if _hook is None:
        raise LookupError("no memories are registered (memadmin.memories is missing)")
    return _hook

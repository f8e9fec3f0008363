"""How much of the eligible memory surface an injection reaches."""

from .graph import reach
from .model import Coverage, Mode


def coverage_of(
    mode: Mode,
    injected_ids: list[int],
    eligible_count: int,
    details: dict[int, tuple[int, ...]],
) -> tuple[Coverage, set[int]]:
    """Return the coverage and the set of reachable ids.

    In plugin mode only what is injected is reachable: nothing in the block points further.
    In headers mode an injected header's line lists its details, so they, and the details
    of any header among them, transitively, are reachable too.
    """
    reachable = set(injected_ids)
    if mode == "headers":
        reach(injected_ids, details, reachable)
    coverage = Coverage(
        eligible=eligible_count, injected=len(injected_ids), reachable=len(reachable)
    )
    return coverage, reachable

"""A suggestion of the structure assistant: a header over ordered details."""

from dataclasses import dataclass
from typing import Literal

SuggestionKind = Literal["sop", "dossier", "note", "family", "theme"]

# A composite a person can still read: the limit on members.
MAX_MEMBERS = 25

COMPOSITE_TYPE = {
    "sop": "sequence",
    "dossier": "theme",
    "note": "theme",
    "family": "theme",
    "theme": "theme",
}


@dataclass(frozen=True, slots=True)
class Detail:
    """One detail of a suggestion: an existing memory (``memory_id``) or a new fragment."""

    text: str
    memory_id: int | None = None


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A header to write over ordered details, in one composite.

    ``source_id`` is the monolith a fragmenting suggestion replaces (archived once its
    details exist); a family has none: its details are memories that stay as they are.
    ``key`` names the suggestion stably across runs on the same memories.
    """

    key: str
    kind: SuggestionKind
    category: str
    header: str
    header_tokens: int
    details: tuple[Detail, ...]
    source_id: int | None = None
    # A monolith's split, as `fragments.apply_boundaries` takes it (character offsets).
    boundaries: tuple[int, ...] = ()
    # The tokens of the memories it covers as they are (their texts, counted): what they take
    # when injected whole, against `header_tokens` once the header stands for them.
    tokens_now: int = 0

    @property
    def composite_type(self) -> str:
        return COMPOSITE_TYPE[self.kind]

    @property
    def member_ids(self) -> tuple[int, ...]:
        """Return the ids of the existing memories among the details."""
        return tuple(d.memory_id for d in self.details if d.memory_id is not None)


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def lost_lines(original: str, suggestion: Suggestion) -> list[str]:
    """Return the lines of the original monolith found in neither the header nor a detail.

    Fragmenting must lose nothing: every non-blank line of the original is, trimmed, a line
    of the header or of some detail (a list item's bullet aside, which the splitter drops),
    or the title the header opens with (its heading mark and closing colon or stop aside).
    """
    kept: set[str] = set(_lines(suggestion.header))
    for detail in suggestion.details:
        kept.update(_lines(detail.text))
    lost = []
    for line in _lines(original):
        bare = line.lstrip("-*+").strip()
        title = line.lstrip("#").strip().rstrip(":.").strip()
        if line in kept or bare in kept or suggestion.header.startswith(f"{title} ("):
            continue
        lost.append(line)
    return lost

"""Monoliths to fragment: a long memory split into its steps, settings or paragraphs.

The split is ``core.fragments.propose_split`` (headings, then list items, then paragraphs).
What the parts are names the suggestion: numbered items make an SOP (a sequence composite of
its steps), ``key: value`` or ``key = value`` lines a config dossier (a theme, one detail per
setting), anything else a long note (a theme of its paragraphs). A title heading moves into
the header and out of the first detail (``fragments.title_heading_end``), so no line is
written twice and none is lost (``model.lost_lines``). The split is the fragment tool's, so
applying one is ``memory_fragment`` with the suggestion's ``boundaries``. A memory of more
than ``MAX_MEMBERS`` parts is left to the fragment tool, where a person joins some.
"""

import hashlib
import re

from memadmin.core.fragments import (
    SplitError,
    apply_boundaries,
    boundaries_of,
    propose_split,
    proposed_summary,
    title_heading_end,
)
from memadmin.core.ledger import TokenCounter

from .drafting import draft_header
from .model import MAX_MEMBERS, Detail, Suggestion, SuggestionKind

# A memory this many tokens long or more is worth fragmenting (about 250 characters), when it
# has three parts or more.
MIN_TOKENS = 60
MIN_PARTS = 3

_NUMBERED = re.compile(r"^\s*\d{1,9}[.)]\s")
_SETTING = re.compile(r"^\s*[-*+]?\s*`?[\w.\-/]+`?\s*(?::|=)\s*\S")
NOUNS = {"sop": "steps", "dossier": "settings", "note": "parts"}


def monolith_suggestion(
    memory_id: int, category: str, text: str, *, counter: TokenCounter, header_limit: int
) -> Suggestion | None:
    """Return the suggestion to fragment this memory, or None when it has too few parts."""
    title = proposed_summary(text)
    proposed = propose_split(text)
    boundaries = boundaries_of(proposed)
    title_end = title_heading_end(text, title)
    if boundaries and title_end is not None and proposed[0].end <= title_end:
        boundaries = boundaries[1:]  # the title stood alone: it goes to the header
    try:
        fragments = apply_boundaries(text, boundaries, summary=title)
    except SplitError:  # one part, or none
        return None
    if len(fragments) < MIN_PARTS or len(fragments) > MAX_MEMBERS:
        return None
    parts = [fragment.text for fragment in fragments]
    kind = _kind(parts)
    header = draft_header(title, parts, counter=counter, noun=NOUNS[kind], limit=header_limit)
    return Suggestion(
        key=f"fragment:{memory_id}:{text_digest(text)}",
        kind=kind,
        category=category,
        header=header,
        header_tokens=counter.count(header),
        details=tuple(Detail(part) for part in parts),
        source_id=memory_id,
        boundaries=tuple(boundaries),
    )


def _kind(parts: list[str]) -> SuggestionKind:
    numbered = sum(bool(_NUMBERED.match(part)) for part in parts)
    settings = sum(bool(_SETTING.match(part)) for part in parts)
    if numbered * 2 >= len(parts):
        return "sop"
    if settings * 2 >= len(parts):
        return "dossier"
    return "note"


def text_digest(text: str) -> str:
    """Return the digest a monolith's key ends with: its text's, so an edit changes the key."""
    return hashlib.sha256(text.encode()).hexdigest()[:8]

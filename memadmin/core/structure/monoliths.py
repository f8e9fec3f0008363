"""Monoliths to fragment: a long memory split into its steps, settings or paragraphs.

The split is ``core.fragments.propose_split`` (headings, then list items, then paragraphs).
What the parts are names the suggestion: numbered items make an SOP (a sequence composite of
its steps), ``key: value`` or ``key = value`` lines a config dossier (a theme, one detail per
setting), anything else a long note (a theme of its paragraphs). The monolith's title (a
heading, or a short first line) moves into the header and out of the first detail, so no
line is written twice and none is lost (``model.lost_lines``).
"""

import hashlib
import re

from memadmin.core.fragments import propose_split, proposed_summary
from memadmin.core.ledger import TokenCounter

from .drafting import SUBJECT_WORDS, draft_header
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
    parts = [fragment.text for fragment in propose_split(text)]
    parts = _without_title(parts, title)
    if len(parts) < MIN_PARTS:
        return None
    kind = _kind(parts)
    parts = _at_most(parts, MAX_MEMBERS)
    header = draft_header(title, parts, counter=counter, noun=NOUNS[kind], limit=header_limit)
    return Suggestion(
        key=f"fragment:{memory_id}:{_digest(text)}",
        kind=kind,
        category=category,
        header=header,
        header_tokens=counter.count(header),
        details=tuple(Detail(part) for part in parts),
        source_id=memory_id,
    )


def _without_title(parts: list[str], title: str) -> list[str]:
    """Drop the title line from the first part when the header will carry it whole."""
    if not parts or len(title.split()) > SUBJECT_WORDS:
        return parts
    first_line, _, rest = parts[0].partition("\n")
    if first_line.lstrip("#").strip().rstrip(":").strip() != title:
        return parts
    return [rest.strip(), *parts[1:]] if rest.strip() else parts[1:]


def _kind(parts: list[str]) -> SuggestionKind:
    numbered = sum(bool(_NUMBERED.match(part)) for part in parts)
    settings = sum(bool(_SETTING.match(part)) for part in parts)
    if numbered * 2 >= len(parts):
        return "sop"
    if settings * 2 >= len(parts):
        return "dossier"
    return "note"


def _at_most(parts: list[str], limit: int) -> list[str]:
    """Join neighbouring parts until there are at most ``limit``, keeping every line."""
    while len(parts) > limit:
        shortest = min(range(len(parts) - 1), key=lambda i: len(parts[i]) + len(parts[i + 1]))
        parts = [
            *parts[:shortest],
            parts[shortest] + "\n" + parts[shortest + 1],
            *parts[shortest + 2 :],
        ]
    return parts


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]

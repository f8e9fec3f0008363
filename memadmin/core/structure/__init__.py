"""The structure assistant's core: what to fragment, what to group, and the header of each.

Proposal 3 raises coverage at the same token budget by fragmenting monoliths into details
under header memories and grouping related small memories under headers, so the default
injection is a table of contents. ``suggest(memories, counter=...)`` proposes both:

- ``monoliths``: a long memory split into its steps (an SOP: a sequence), its settings (a
  config dossier: a theme) or its paragraphs (a long note: a theme), under a drafted header;
- ``families``: small memories of one category about the same subject, grouped under a
  category header (a theme), at most ``MAX_MEMBERS`` each;
- ``drafting``: the header texts, deterministic, within a token limit they state, and a
  header drafted again when its details change (``redraft``, the stale queue's draft);
- ``effect``: what applying them does to the injection at a budget.

Plain data in, plain data out: no Django here.
"""

from .drafting import HEADER_TOKEN_LIMIT, draft_header, redraft
from .effect import Effect, after_applying, effect_of
from .model import MAX_MEMBERS, Detail, Suggestion, SuggestionKind, lost_lines
from .suggest import StructureMemory, suggest

__all__ = [
    "HEADER_TOKEN_LIMIT",
    "MAX_MEMBERS",
    "Detail",
    "Effect",
    "StructureMemory",
    "Suggestion",
    "SuggestionKind",
    "after_applying",
    "draft_header",
    "effect_of",
    "lost_lines",
    "redraft",
    "suggest",
]

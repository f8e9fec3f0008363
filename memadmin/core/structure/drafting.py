"""Header texts a person would keep: what the group is about, then one short line per detail.

Deterministic (no model, nothing downloaded): the subject comes from the group (a monolith's
title or first sentence, a family's shared words), each line from its detail's first words.
The header is one line of at most ``limit`` tokens (``HEADER_TOKEN_LIMIT`` unless asked),
stated in the header's count; lines that do not fit end as "…and N more". The details'
ids are listed after it in headers mode (``ledger.headers``), so none is lost to the limit.
"""

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from memadmin.core.ledger import TokenCounter

# Tokens of a header's own text, the details' ids aside: about two lines of a terminal.
# Measured on the demo: a group's subject takes 6 to 12 tokens, a short line 6 to 9.
HEADER_TOKEN_LIMIT = 60
WORDS_PER_LINE = 6
SUBJECT_WORDS = 10
# A family's pattern: read in the first words of each member's first sentence, named by at
# least this many words that are not stop words or numbers.
PATTERN_WORDS = 20
PATTERN_CONTENT = 2

_DRAFTED = re.compile(r"^(?P<subject>.+?) \((?P<count>\d+) (?P<noun>[a-z]+)\)(?::|$)")
_MARKER = re.compile(r"^(?:#{1,6}\s+|[-*+]\s+|\d{1,9}[.)]\s+)")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s")
_FULL_STOP = re.compile(r"(?<=[.!?])\s")
_CLAUSE_END = re.compile(r"(?<=[.!?;])\s")
_SPACE_BEFORE = re.compile(r"\s+(?=[,;:.])")
_TRAILING = " .,;:!?-—"


def short_line(text: str, words: int = WORDS_PER_LINE, *, subject: str = "") -> str:
    """Return the first words of a detail's first sentence, without its list or heading mark.

    When the line is labelled with the group's ``subject`` ("api-gateway request timeout:
    30 s"), the subject is left out, since the header says it once, and the line goes on past
    the colon to what differs ("api-gateway: 30 s, chosen to stay…").
    """
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = _MARKER.sub("", first)
    found = first.lower().find(subject.lower()) if subject else -1
    label = found >= 0 and first[found + len(subject) :].lstrip().startswith(":")
    if label:
        first = first[:found] + first[found + len(subject) :]
        first = _SPACE_BEFORE.sub("", " ".join(first.split())).strip(" ,;:")
        sentence = _CLAUSE_END.split(first, maxsplit=1)[0]
    else:
        sentence = _SENTENCE_END.split(first, maxsplit=1)[0]
    kept = sentence.split()
    line = " ".join(kept[:words]).rstrip(_TRAILING)
    return line + "…" if len(kept) > words else line


def subject_of(text: str, words: int = SUBJECT_WORDS) -> str:
    """Return a subject cut to ``words`` words, without a heading mark or a closing colon."""
    kept = _MARKER.sub("", text.strip()).split()
    subject = " ".join(kept[:words]).rstrip(_TRAILING)
    return subject + "…" if len(kept) > words else subject


def draft_header(
    subject: str,
    detail_texts: Sequence[str],
    *,
    counter: TokenCounter,
    noun: str = "details",
    limit: int = HEADER_TOKEN_LIMIT,
) -> str:
    """Return the header: "subject (N noun): line; line; …and K more", within ``limit`` tokens.

    The subject alone is cut word by word when even it passes the limit.
    """
    subject = subject_of(subject)
    cut = subject.rstrip("…")
    lines = [line for text in detail_texts if (line := short_line(text, subject=cut))]
    return _fit(subject, lines, len(detail_texts), noun, counter, limit)


def header_subject(header: str) -> str:
    """Return what a drafted header is about ("Roll back … by re-deploying the previous tag"
    of "Roll back … (11 memories): …"); a header written by hand whole."""
    drafted = _DRAFTED.match(header.strip())
    return drafted["subject"] if drafted else header.strip()


def redraft(
    header: str,
    detail_texts: Sequence[str],
    *,
    counter: TokenCounter,
    limit: int = HEADER_TOKEN_LIMIT,
) -> str | None:
    """Return a drafted header drafted again from its details as they are now, or None for a
    header a person wrote (one not of the drafted form "subject (N noun): …"): a draft made
    from scratch would replace their words, so their header is theirs to edit.

    A family ("… (N memories): …") is drawn from its pattern again; a fragmented monolith keeps
    its subject and noun. The limit is the larger of ``limit`` and what the header takes now.
    """
    drafted = _DRAFTED.match(header.strip())
    if not drafted:
        return None
    subject, noun = drafted["subject"], drafted["noun"]
    limit = max(limit, counter.count(header))
    if noun == "memories":
        family = draft_family_header(detail_texts, counter=counter, limit=limit)
        if family is not None:
            return family
    return draft_header(subject, detail_texts, counter=counter, noun=noun, limit=limit)


@dataclass(frozen=True, slots=True)
class Pattern:
    """The words a family's first sentences share, in order, and what each member puts
    in the gaps: "Archive … logs older than 30 days" with "scheduler", "api-gateway", …"""

    subject: str
    fills: tuple[str, ...]


def shared_pattern(texts: Sequence[str], *, words: int = PATTERN_WORDS) -> Pattern | None:
    """Return the family's pattern, or None when its members share too little of an opening.

    The opening is each text's first sentence, its first ``words`` words; the pattern is the
    words common to all, in order (difflib's matching blocks, folded over the members). It
    needs ``PATTERN_CONTENT`` words that are not stop words or numbers to name the family.
    """
    openings = [_opening(text, words) for text in texts]
    if not all(openings):
        return None
    common = openings[0]
    for other in openings[1:]:
        matcher = difflib.SequenceMatcher(a=common, b=other, autojunk=False)
        common = [
            word
            for block in matcher.get_matching_blocks()
            for word in common[block.a : block.a + block.size]
        ]
    if sum(1 for word in common if _content(word)) < PATTERN_CONTENT:
        return None
    fills = tuple(", ".join(dict.fromkeys(_gaps(common, opening))) for opening in openings)
    if not any(fills):
        return None
    subject = _render(common, openings[0])
    return Pattern(subject=subject[:1].upper() + subject[1:], fills=fills)


def draft_family_header(
    texts: Sequence[str], *, counter: TokenCounter, limit: int = HEADER_TOKEN_LIMIT
) -> str | None:
    """Return a family's header from its pattern: "pattern (N memories): fill; fill; …", or
    None when it has none (the caller drafts from a shared phrase instead)."""
    pattern = shared_pattern(texts)
    if pattern is None:
        return None
    return _fit(pattern.subject, list(pattern.fills), len(texts), "memories", counter, limit)


def _opening(text: str, words: int) -> list[str]:
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    first = _MARKER.sub("", first)
    sentence = _FULL_STOP.split(first, maxsplit=1)[0]
    return sentence.split()[:words]


def _content(word: str) -> bool:
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS  # as families weigh words

    bare = word.strip(_TRAILING + "`'\"()").lower()
    return bool(bare) and not bare.isdigit() and bare not in ENGLISH_STOP_WORDS


def _gaps(common: list[str], words: list[str]) -> list[str]:
    """Return the runs of ``words`` that are not the pattern's, in order."""
    gaps, run, at = [], [], 0
    for word in words:
        if at < len(common) and word == common[at]:
            if run:
                gaps.append(" ".join(run).strip(_TRAILING))
                run = []
            at += 1
        else:
            run.append(word)
    if run:
        gaps.append(" ".join(run).strip(_TRAILING))
    return [gap for gap in gaps if gap]


def _render(common: list[str], words: list[str]) -> str:
    """Return the pattern as it reads in ``words``: its words, "…" where a member's stand."""
    out, at, gap = [], 0, False
    for word in words:
        if at < len(common) and word == common[at]:
            if gap:
                out.append("…")
            out.append(word)
            at += 1
            gap = False
        else:
            gap = True
    return " ".join(out).rstrip(_TRAILING) + (" …" if gap else "")


def _fit(subject: str, lines: list[str], count: int, noun: str, counter, limit: int) -> str:
    """Return "subject (count noun): line; line; …and K more" within ``limit`` tokens."""
    opening = f"{subject} ({count} {noun})"
    while counter.count(opening) > limit and " " in subject:
        subject = subject.rsplit(" ", 1)[0].rstrip(_TRAILING) + "…"
        opening = f"{subject} ({count} {noun})"
    best = opening
    for shown in range(1, len(lines) + 1):
        rest = len(lines) - shown
        text = f"{opening}: " + "; ".join(lines[:shown])
        if rest:
            text += f"; …and {rest} more"
        if counter.count(text) > limit:
            break
        best = text
    return best

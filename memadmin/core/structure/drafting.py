"""Header texts a person would keep: what the group is about, then one short line per detail.

Deterministic (no model, nothing downloaded): the subject comes from the group (a monolith's
title or first sentence, a family's shared words), each line from its detail's first words.
The header is one line of at most ``limit`` tokens (``HEADER_TOKEN_LIMIT`` unless asked),
stated in the header's count; lines that do not fit end as "…and N more". The details'
ids are listed after it in headers mode (``ledger.headers``), so none is lost to the limit.
"""

import re
from collections.abc import Sequence

from memadmin.core.ledger import TokenCounter

# Tokens of a header's own text, the details' ids aside: about two lines of a terminal.
# Measured on the demo: a group's subject takes 6 to 12 tokens, a short line 6 to 9.
HEADER_TOKEN_LIMIT = 60
WORDS_PER_LINE = 6
SUBJECT_WORDS = 10

_DRAFTED = re.compile(r"^(?P<subject>.+?) \((?P<count>\d+) (?P<noun>[a-z]+)\)(?::|$)")
_MARKER = re.compile(r"^(?:#{1,6}\s+|[-*+]\s+|\d{1,9}[.)]\s+)")
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s")
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
    opening = f"{subject} ({len(detail_texts)} {noun})"
    while counter.count(opening) > limit and " " in subject:
        subject = subject.rsplit(" ", 1)[0].rstrip(_TRAILING) + "…"
        opening = f"{subject} ({len(detail_texts)} {noun})"
    lines = [line for text in detail_texts if (line := short_line(text, subject=cut))]
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


def redraft(
    header: str,
    detail_texts: Sequence[str],
    *,
    counter: TokenCounter,
    limit: int = HEADER_TOKEN_LIMIT,
) -> str:
    """Return the header drafted again from its details as they are now.

    A drafted header ("Request timeout (12 memories): …") keeps its subject and its noun; a
    header written by hand keeps its first sentence as the subject. The limit is the larger of
    ``limit`` and what the header takes now, so a person's longer header is not cut short.
    """
    drafted = _DRAFTED.match(header.strip())
    if drafted:
        subject, noun = drafted["subject"], drafted["noun"]
    else:
        subject, noun = _SENTENCE_END.split(header.strip(), maxsplit=1)[0], "details"
    limit = max(limit, counter.count(header))
    return draft_header(subject, detail_texts, counter=counter, noun=noun, limit=limit)

"""Parse the historian's ``<facts>`` output, accounting for every line it holds.

The expected shape, one tag per line::

    <facts>
    <PROJECT_RULES>
    * one fact per bullet
    </PROJECT_RULES>
    </facts>

Upstream's parser drops any block whose tag it does not know. This one drops nothing inside
a facts block: every non-blank line there is either structure of a well-formed block, an
accepted fact, or part of a rejected item with its reason. Text outside facts blocks is
the historian's other output and is ignored. Line numbers count from 1.

For tolerance, a tag may share its line with a bullet when it opens the line
(``<NAMING>* fact``) or, for closing tags of upper-case names and ``</facts>``, ends it
(``* fact</NAMING>``). Tags elsewhere in a line are content.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

NO_FACTS_BLOCK = "no <facts> block"
EMPTY_BLOCK = "empty block"
EMPTY_BULLET = "empty bullet"
TEXT_OUTSIDE_BULLET = "malformed: text outside a bullet"

_LEADING_TAG = re.compile(r"^<(/?)(facts|[A-Za-z_][A-Za-z0-9_]*)>\s*")
_TRAILING_TAG = re.compile(r"\s*</(facts|[A-Z_][A-Z0-9_]*)>$")
_BULLET = re.compile(r"^[*-](?:\s+|$)")


@dataclass(frozen=True)
class AcceptedFact:
    category: str
    content: str
    line: int


@dataclass(frozen=True)
class RejectedItem:
    text: str
    line: int  # 0 when the item concerns the output as a whole
    reason: str


@dataclass
class FactsReport:
    accepted: list[AcceptedFact] = field(default_factory=list)
    rejected: list[RejectedItem] = field(default_factory=list)


def unknown_category(name: str) -> str:
    """Return the rejection reason for a block tagged with a category not allowed."""
    return f"unknown category <{name}>"


def unclosed(name: str) -> str:
    """Return the rejection reason for a block that is never closed."""
    return f"malformed: unclosed <{name}>"


def unexpected_close(name: str) -> str:
    """Return the rejection reason for a closing tag that closes nothing open."""
    return f"malformed: unexpected </{name}>"


@dataclass(frozen=True)
class _Token:
    kind: str  # "open", "close" or "text"
    value: str  # tag name, or the text
    line: int


def _tokens(text: str) -> list[_Token]:
    tokens = []
    for number, raw in enumerate(text.splitlines(), start=1):
        rest = raw.strip()
        while match := _LEADING_TAG.match(rest):
            tokens.append(_Token("close" if match[1] else "open", match[2], number))
            rest = rest[match.end() :]
        closing = []
        while rest and (match := _TRAILING_TAG.search(rest)):
            closing.append(_Token("close", match[1], number))
            rest = rest[: match.start()]
        if rest:
            tokens.append(_Token("text", rest, number))
        tokens.extend(reversed(closing))
    return tokens


class _Block:
    """A category block being read: its opening line and the bullets seen so far."""

    def __init__(self, name: str, line: int):
        self.name = name
        self.line = line
        self.bullets: list[tuple[str, int]] = []


class _Parser:
    def __init__(self, allowed: frozenset[str]):
        self.allowed = allowed
        self.report = FactsReport()
        self.in_facts = False
        self.facts_line = 0
        self.block: _Block | None = None

    def reject(self, text: str, line: int, reason: str) -> None:
        self.report.rejected.append(RejectedItem(text, line, reason))

    def abandon_block(self) -> None:
        """Reject the open category block, whose closing tag never came."""
        block, self.block = self.block, None
        self.reject(f"<{block.name}>", block.line, unclosed(block.name))
        for content, line in block.bullets:
            self.reject(content, line, unclosed(block.name))

    def close_block(self) -> None:
        block, self.block = self.block, None
        if block.name not in self.allowed:
            reason = unknown_category(block.name)
            if not block.bullets:
                self.reject(f"<{block.name}>", block.line, reason)
            for content, line in block.bullets:
                self.reject(content, line, reason)
        elif not block.bullets:
            self.reject(f"<{block.name}>", block.line, EMPTY_BLOCK)
        else:
            for content, line in block.bullets:
                self.report.accepted.append(AcceptedFact(block.name, content, line))

    def feed(self, token: _Token) -> None:
        if not self.in_facts:
            if token.kind == "open" and token.value == "facts":
                self.in_facts, self.facts_line = True, token.line
            return
        if token.kind == "open":
            if self.block is not None:
                self.abandon_block()
            if token.value == "facts":
                self.reject("<facts>", token.line, "malformed: nested <facts>")
            else:
                self.block = _Block(token.value, token.line)
        elif token.kind == "close":
            if self.block is not None and token.value == self.block.name:
                self.close_block()
                return
            if token.value == "facts":
                if self.block is not None:
                    self.abandon_block()
                self.in_facts = False
                return
            self.reject(f"</{token.value}>", token.line, unexpected_close(token.value))
        elif self.block is None or not _BULLET.match(token.value):
            self.reject(token.value, token.line, TEXT_OUTSIDE_BULLET)
        else:
            content = token.value[1:].strip()
            if content:
                self.block.bullets.append((content, token.line))
            else:
                self.reject(token.value, token.line, EMPTY_BULLET)

    def finish(self, seen_facts: bool) -> FactsReport:
        if self.block is not None:
            self.abandon_block()
        if self.in_facts:
            self.reject("<facts>", self.facts_line, unclosed("facts"))
        if not seen_facts:
            self.reject("", 0, NO_FACTS_BLOCK)
        self.report.rejected.sort(key=lambda item: item.line)
        return self.report


def parse_facts(text: str, allowed: Iterable[str]) -> FactsReport:
    """Return the facts of every ``<facts>`` block in ``text`` whose category is allowed.

    Blocks of categories outside ``allowed``, empty blocks and bullets, unclosed tags and
    stray text come back as rejected items with their line and reason, in input order.
    """
    parser = _Parser(frozenset(allowed))
    tokens = _tokens(text)
    for token in tokens:
        parser.feed(token)
    seen_facts = any(t.kind == "open" and t.value == "facts" for t in tokens)
    return parser.finish(seen_facts)

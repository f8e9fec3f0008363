"""Tell a rewording (one fact said twice) from a variant (one sentence about different things).

Two similar texts are compared by the words each has that the other lacks: the deletions and
insertions of their word diff, taken as bags so that a reordered clause counts as no change.
Function words ("the", "must", "always") and inflections ("restarts", "restarted") are
ignored, and a few verbs used interchangeably in operating notes count as one
(`INTERCHANGEABLE`). Then, in this order:

- one text negates what the other states ("not", "never", "without"...): a **variant**;
- more than `SLOT_WORDS` content words on one side that the other lacks: the texts share a
  frame (a preamble, a sentence pattern) around different facts: **distinct**;
- a number, version, path, host or identifier differs ("30"/"60", "v2.1"/"v2.2",
  "eu-west-1"/"us-east-1"): a **variant**;
- no content word differs: a **rewording**;
- a word or two replaced on each side: one slot filled with another thing, another service
  or environment ("staging"/"canary"): a **variant**;
- a word or two added on one side only: a qualifier ("... in staging") narrows the fact,
  a **variant**.

Words alone cannot see a paraphrase in other words ("Only signed requests reach the API" /
"The API accepts signed calls alone"). When an embedding found the pair (`same_meaning`),
texts that differ in many words but share no long frame (fewer shared content words than
`FRAME_SHARE` times the differing ones) are taken for a rewording; negations, numbers,
names and a refilled slot are still variants, since embeddings put those close together.

Only a rewording may be offered as a duplicate to archive or merge: a variant or a distinct
pair states two facts, and archiving either would lose one. The rules err that way: a
rewording by a synonym outside `INTERCHANGEABLE` is called a variant (kept, shown as alike).
Nothing here knows about Django.
"""

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

Relation = Literal["rewording", "variant", "distinct"]
REWORDING: Relation = "rewording"
VARIANT: Relation = "variant"
DISTINCT: Relation = "distinct"
RELATION_LABELS = {
    REWORDING: "rewording: one fact said twice",
    VARIANT: "alike: the same sentence about different things",
    DISTINCT: "different facts",
}
SLOT_WORDS = 2  # at most this many words replaced on each side: one slot refilled
FRAME_SHARE = 1  # shared words at least this many times the differing ones: a shared frame

# A word, or an identifier joined by . / : @ - _ ("eu-west-1", "v2.1", "api.example.com").
_ATOM = re.compile(r"\w+(?:[./:@-]\w+)*", re.UNICODE)
_CONTRACTION = re.compile("n['\u2019]t\\b", re.IGNORECASE)
NEGATIONS = frozenset(
    {"not", "no", "never", "without", "cannot", "nor", "none", "nothing", "neither", "nobody"}
)
# Words that carry no fact of their own: a rewording adds or drops them freely.
_FUNCTION_WORDS = """
    a an the this that these those it its it's they them their there here of in on at to for
    from by with into onto over under about as and or but so then than if when whenever once
    after before while until during since is are was were be been being am do does did done
    has have had having will would shall should must may might can could ought please always
    every each any all also just only still ever first note remember rule important keep
    kept make sure we our us you your i me my he she his her which who whom whose what where
    why how one ones other another same such very more most less least some again already
    yet both either whether because due per via up down out off new use used using set
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS.split())
# Verbs used for one another in operating notes: each maps to the first of its group.
INTERCHANGEABLE = {
    word: group[0]
    for group in (
        ("delete", "remove", "erase", "drop"),
        ("restart", "reboot", "bounce", "relaunch"),
        ("start", "launch", "begin"),
        ("stop", "halt", "shut"),
        ("deploy", "ship", "roll"),
        ("check", "verify", "confirm", "ensure"),
        ("run", "execute"),
        ("create", "add"),
        ("change", "modify", "update", "edit", "alter"),
        ("require", "need"),
        ("forbid", "prohibit", "disallow", "ban"),
        ("store", "save"),
        ("tell", "inform", "notify"),
    )
    for word in group
}
# Irregular forms a suffix cannot undo.
IRREGULAR = {
    "written": "write",
    "wrote": "write",
    "ran": "run",
    "sent": "send",
    "held": "hold",
    "built": "build",
    "taken": "take",
    "took": "take",
    "given": "give",
    "gave": "give",
    "chosen": "choose",
    "chose": "choose",
    "begun": "begin",
    "began": "begin",
    "shut": "shut",
}
_SUFFIXES = (("ies", "y"), ("ied", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


@dataclass(frozen=True, slots=True)
class Comparison:
    """How two texts relate, and the words that tell: each side's words the other lacks."""

    relation: Relation
    only_first: tuple[str, ...]
    only_second: tuple[str, ...]
    why: str

    @property
    def is_rewording(self) -> bool:
        """Return True when the texts state one fact, so one of them may go."""
        return self.relation == REWORDING


@dataclass(frozen=True, slots=True)
class _Words:
    content: Counter
    shown: dict[str, str]  # a content word's key -> the text's own spelling of it
    negated: bool


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    """Return the word without an inflection, then mapped to its interchangeable verb."""
    stem = IRREGULAR.get(word, word)
    if stem == word and len(word) >= 4 and not _is_specific(word):
        for suffix, replacement in _SUFFIXES:
            long_enough = len(word) - len(suffix) + len(replacement) >= 3
            if word.endswith(suffix) and not word.endswith("ss") and long_enough:
                stem = word[: -len(suffix)] + replacement
                break
        if stem != word and len(stem) > 3 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
            stem = stem[:-1]  # pinned, running
    if stem.endswith("e") and len(stem) > 3 and not _is_specific(stem):
        stem = stem[:-1]  # write, writes, written: "writ"
    for candidate in (word, stem, stem + "e"):
        if candidate in INTERCHANGEABLE:
            return INTERCHANGEABLE[candidate]
    return stem


def _is_specific(word: str) -> bool:
    """Return True for a number, version, path, host or identifier: a word naming one thing."""
    return any(c.isdigit() for c in word) or any(c in "./:@-_" for c in word)


def _atoms(text: str) -> list[str]:
    """Return the text's words and identifiers, lowercased, "n't" read as "not"."""
    return _ATOM.findall(_CONTRACTION.sub(" not", text).lower())


def _keyed(atoms: list[str]) -> Iterator[tuple[str, str]]:
    """Yield each content word with its key (negations and function words left out)."""
    for atom in atoms:
        if atom in NEGATIONS or atom in FUNCTION_WORDS or (len(atom) < 2 and not atom.isdigit()):
            continue
        key = _stem(atom)
        if key not in FUNCTION_WORDS:
            yield atom, key


def content_words(text: str) -> list[str]:
    """Return the text's content words, each as its key: the words TF-IDF and `compare` read.

    Lowercased, negations and function words left out, inflections undone, interchangeable
    verbs made one ("Retried the webhooks" gives ["retry", "webhook"]).
    """
    return [key for _, key in _keyed(_atoms(text))]


@lru_cache(maxsize=65_536)
def _words(text: str) -> _Words:
    """Return the text's content words (a bag of keys), their spellings, and its negation."""
    atoms = _atoms(text)
    content: Counter = Counter()
    shown: dict[str, str] = {}
    for atom, key in _keyed(atoms):
        content[key] += 1
        shown.setdefault(key, atom)
    negations = sum(1 for atom in atoms if atom in NEGATIONS)
    return _Words(content=content, shown=shown, negated=negations % 2 == 1)


def compare(first: str, second: str, *, same_meaning: bool = False) -> Comparison:
    """Return whether two texts are a rewording, a variant or distinct, and why.

    `same_meaning` says an embedding found the texts near: a paraphrase in other words.
    """
    a, b = _words(first), _words(second)
    # Which words, not how often: saying a word twice states no other fact.
    only_a = Counter(a.content.keys() - b.content.keys())
    only_b = Counter(b.content.keys() - a.content.keys())
    shown_a = tuple(a.shown[key] for key in sorted(only_a))
    shown_b = tuple(b.shown[key] for key in sorted(only_b))

    def result(relation: Relation, why: str) -> Comparison:
        return Comparison(relation=relation, only_first=shown_a, only_second=shown_b, why=why)

    if a.negated != b.negated:
        return result(VARIANT, "one of them says the opposite (a negation)")
    replaced = max(sum(only_a.values()), sum(only_b.values()))
    if replaced > SLOT_WORDS:
        shared = sum((a.content & b.content).values())
        if same_meaning and shared < FRAME_SHARE * replaced:
            return result(REWORDING, "a paraphrase: other words, the same meaning by embedding")
        if only_a and only_b:
            return result(DISTINCT, "the same frame around different facts")
        return result(DISTINCT, "one of them states more: " + " ".join(shown_a + shown_b))
    specific = [w for w in shown_a + shown_b if _is_specific(w)]
    if specific:
        return result(VARIANT, "a number, version, path or name differs: " + ", ".join(specific))
    if not only_a and not only_b:
        return result(REWORDING, "the same words, reordered or rephrased")
    if only_a and only_b:
        return result(
            VARIANT,
            f"the same sentence about another thing: {' '.join(shown_a)} / {' '.join(shown_b)}",
        )
    return result(VARIANT, "one of them narrows the fact: " + " ".join(shown_a + shown_b))

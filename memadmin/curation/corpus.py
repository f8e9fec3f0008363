"""Generate memory texts with planted near-duplicate and unrelated pairs, as plain data.

The duplicate finder is judged on these (tests, `manage.py curation_timing`): each fact is
made of parts (a subject, a rule, a condition, a reason, sometimes a number) drawn from a
vocabulary of made-up words, so two facts share a word only by chance. A planted
near-duplicate restates a fact in one of two ways: a small rewording (its verb in another
form or an interchangeable one, a word like "always" added), or its clauses reordered. A
planted variant states the same fact with another number: two facts, never to be offered
as duplicates (see `memadmin.core.rewording`). A planted unrelated pair shares its subject,
verb and object with the other but not its condition, reason or number.
"""

import random
from dataclasses import dataclass

SYLLABLES = [
    "ka",
    "lo",
    "ri",
    "ne",
    "ta",
    "mu",
    "bo",
    "sa",
    "vi",
    "de",
    "pa",
    "gu",
    "re",
    "tin",
    "mor",
    "sel",
    "dar",
    "fen",
    "vok",
    "lim",
    "qua",
    "zen",
    "hap",
    "rul",
    "mes",
    "tor",
    "bin",
    "cal",
    "dex",
    "fir",
    "gom",
]
VERBS = ("must use", "should call", "needs", "saves", "reads", "writes", "checks", "sends")
# Each verb restated: another form of it, or a verb the rewording rules hold interchangeable.
SYNONYMS = {
    "must use": "has to use",
    "should call": "ought to call",
    "needs": "requires",
    "saves": "stores",
    "reads": "will read",
    "writes": "has written",
    "checks": "verifies",
    "sends": "has sent",
}
UNITS = ("seconds", "retries", "megabytes", "workers", "days")
VARIANTS = ("reworded", "reordered", "renumbered")  # a renumbered pair is a planted variant


@dataclass(frozen=True, slots=True)
class Fact:
    """The parts a fact's text is made of."""

    subject: str
    verb: str
    object: str
    condition: str
    reason: str
    number: int | None
    unit: str

    def text(self, *, reordered: bool = False) -> str:
        """Return the fact as a sentence; `reordered` puts the condition first."""
        limit = f" within {self.number} {self.unit}" if self.number is not None else ""
        main = f"{self.subject} {self.verb} {self.object}{limit}"
        if reordered:
            return f"When {self.condition}, {main}, because {self.reason}."
        return f"{main.capitalize()} when {self.condition}, because {self.reason}."


@dataclass(frozen=True, slots=True)
class PlantedCorpus:
    """Texts and the pairs planted among them (positions into `texts`, smaller first).

    `duplicates` are rewordings (one fact twice), `variants` one fact with another number
    (two facts), `unrelated` two facts sharing their subject, verb and object.
    """

    texts: list[str]
    duplicates: list[tuple[int, int, str]]
    unrelated: list[tuple[int, int]]
    variants: list[tuple[int, int]]


def vocabulary(rng: random.Random, size: int) -> list[str]:
    """Return `size` distinct made-up words of two to four syllables."""
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choices(SYLLABLES, k=rng.randint(2, 4))))
    return sorted(words)


def _phrase(rng: random.Random, words: list[str], size: int) -> str:
    return " ".join(rng.choices(words, k=size))


def _fact(rng: random.Random, words: list[str]) -> Fact:
    has_number = rng.random() < 0.5
    return Fact(
        subject="the " + _phrase(rng, words, 2),
        verb=rng.choice(VERBS),
        object=_phrase(rng, words, 3),
        condition=_phrase(rng, words, 2) + " " + rng.choice(("fails", "starts", "changes")),
        reason=_phrase(rng, words, 4),
        number=rng.randint(2, 500) if has_number else None,
        unit=rng.choice(UNITS),
    )


def _variant(rng: random.Random, fact: Fact, kind: str, words: list[str]) -> str:
    if kind == "reordered":
        return fact.text(reordered=True)
    if kind == "renumbered":
        number = (fact.number or rng.randint(2, 500)) + rng.randint(1, 90)
        return Fact(**{**_fields(fact), "number": number}).text()
    return Fact(
        **{**_fields(fact), "verb": SYNONYMS[fact.verb], "reason": "always " + fact.reason}
    ).text()


def _fields(fact: Fact) -> dict:
    return {name: getattr(fact, name) for name in Fact.__slots__}


def planted_corpus(
    *, count: int, duplicate_pairs: int, unrelated_pairs: int, seed: int = 17
) -> PlantedCorpus:
    """Return `count` texts holding the planted pairs, shuffled, the rest unrelated facts.

    Of the `duplicate_pairs` planted, every third is a variant (renumbered), the others
    rewordings.
    """
    planted = 2 * (duplicate_pairs + unrelated_pairs)
    if planted > count:
        raise ValueError(f"{planted} planted texts do not fit in {count}.")
    rng = random.Random(seed)
    words = vocabulary(rng, max(2000, count // 5))
    items: list[tuple[str, str]] = []  # (text, tag) with tag "d<n>" / "u<n>" for a pair
    for n in range(duplicate_pairs):
        fact, kind = _fact(rng, words), VARIANTS[n % len(VARIANTS)]
        if kind == "renumbered" and fact.number is None:
            fact = Fact(**{**_fields(fact), "number": rng.randint(2, 500)})
        items += [(fact.text(), f"d{n}"), (_variant(rng, fact, kind, words), f"d{n}")]
    for n in range(unrelated_pairs):
        first, other = _fact(rng, words), _fact(rng, words)
        shared = {"subject": first.subject, "verb": first.verb, "object": first.object}
        second = Fact(**{**_fields(other), **shared})
        items += [(first.text(), f"u{n}"), (second.text(), f"u{n}")]
    items += [(_fact(rng, words).text(), "") for _ in range(count - planted)]
    rng.shuffle(items)
    positions: dict[str, list[int]] = {}
    for position, (_, tag) in enumerate(items):
        if tag:
            positions.setdefault(tag, []).append(position)
    return PlantedCorpus(
        texts=[text for text, _ in items],
        duplicates=[
            (*positions[f"d{n}"], VARIANTS[n % len(VARIANTS)])
            for n in range(duplicate_pairs)
            if VARIANTS[n % len(VARIANTS)] != "renumbered"
        ],
        unrelated=[tuple(positions[f"u{n}"]) for n in range(unrelated_pairs)],
        variants=[
            tuple(positions[f"d{n}"])
            for n in range(duplicate_pairs)
            if VARIANTS[n % len(VARIANTS)] == "renumbered"
        ],
    )

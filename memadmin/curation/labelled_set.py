"""Generate the labelled set of rewordings, variants and distinct facts, as plain data.

The duplicate finder's precision and recall are measured on it (tests/curation/
test_labelled_set.py). Each sentence pattern states one kind of fact about a slot (a
service, an environment, a number, a path, a version); filled with one value it is a fact,
written in two or three phrasings of its own. So every pair of texts has a label:

- the same fact in two phrasings: a **rewording** (one may go, or both merge into one);
- the same pattern filled with another value, or negated: a **variant** (two facts);
- facts of different patterns, some behind one long shared preamble: **distinct**.

Most phrasings restate the fact with the same content words (clauses reordered, the voice
or the inflections changed, a verb swapped for one the classifier knows as interchangeable);
some use a synonym it does not know ("tear down" for "delete"), so recall is not 100% by
construction. Deterministic: the same seed gives the same texts, in the same order.
"""

import random
from dataclasses import dataclass
from itertools import combinations

from memadmin.core.rewording import DISTINCT, REWORDING, VARIANT, Relation

# (phrasings of one fact about {x}, values {x} takes, a negated phrasing or "")
PATTERNS: tuple[tuple[tuple[str, ...], tuple[str, ...], str], ...] = (
    (
        (
            "Restart the scheduler after a DNS TTL change in {x}.",
            "After a DNS TTL change in {x}, restart the scheduler.",
            "In {x} the scheduler must be rebooted after any DNS TTL change.",
        ),
        ("staging", "canary", "production", "sandbox"),
        "Never restart the scheduler after a DNS TTL change in {x}.",
    ),
    (
        (
            "Feature flags for the {x} service are read from Consul.",
            "The {x} service reads its feature flags from Consul.",
            "The {x} service's feature flags are read from Consul.",
        ),
        ("billing", "search", "checkout", "notifications", "inventory"),
        "Feature flags for the {x} service are not read from Consul.",
    ),
    (
        (
            "The payments webhook is retried {x} times before it is dropped.",
            "Before dropping the payments webhook, retry it {x} times.",
        ),
        ("3", "5", "8", "12"),
        "",
    ),
    (
        (
            "Application logs of the worker are written to {x}.",
            "The worker writes its application logs to {x}.",
            "Write the worker's application logs to {x}.",
        ),
        ("/var/log/worker", "/srv/logs/worker", "/data/worker/log"),
        "",
    ),
    (
        (
            "Pin Redis to {x} in every environment.",
            "In every environment, Redis is pinned to {x}.",
        ),
        ("v6.2", "v7.0", "v7.2"),
        "",
    ),
    (
        (
            "Delete the preview databases of {x} every Sunday night.",
            "Every Sunday night, remove the {x} preview databases.",
            "Tear down the preview databases of {x} each Sunday night.",
        ),
        ("frontend", "mobile", "admin", "partners"),
        "Do not delete the preview databases of {x} on Sunday night.",
    ),
    (
        (
            "Migrations of the {x} database run before the deploy, never after it.",
            "Run the {x} database migrations before deploying, never after.",
        ),
        ("orders", "accounts", "ledger", "catalog"),
        "",
    ),
    (
        (
            "The {x} team owns the on-call rota for the edge proxies.",
            "The on-call rota for the edge proxies is owned by the {x} team.",
            "Edge proxy on-call rota: owned by the {x} team.",
        ),
        ("platform", "networking", "security", "infrastructure"),
        "",
    ),
    (
        (
            "Rotate the TLS certificates of the {x} cluster every 90 days.",
            "Every 90 days, rotate the {x} cluster's TLS certificates.",
        ),
        ("alpha", "bravo", "charlie", "delta", "echo"),
        "Do not rotate the TLS certificates of the {x} cluster automatically.",
    ),
    (
        (
            "Backups of the {x} store are kept for 30 days.",
            "The {x} store keeps its backups for 30 days.",
            "Keep {x} store backups for 30 days.",
        ),
        ("session", "media", "analytics", "audit"),
        "",
    ),
    (
        (
            "Check the {x} dashboard before approving a release.",
            "Before approving a release, verify the {x} dashboard.",
            "Before approving any release, check the {x} dashboard.",
        ),
        ("latency", "errors", "saturation", "traffic"),
        "",
    ),
    (
        (
            "The request timeout of the gateway is {x} seconds.",
            "The gateway's request timeout is {x} seconds.",
        ),
        ("10", "15", "30", "45"),
        "",
    ),
)
# One preamble, many different rules behind it: distinct facts sharing most of their words.
PREAMBLE = (
    "Agreed at the March architecture review and binding for every team, repository and "
    "environment until the next review: "
)
PREAMBLE_RULES = (
    "table names use snake_case plurals.",
    "the billing gateway is called from background jobs only.",
    "secrets live in the vault, never in environment files.",
    "every public endpoint is versioned in its path.",
    "pull requests need two approvals from code owners.",
    "queues carry message schemas registered in the catalog.",
    "dashboards are defined as code in the observability repository.",
    "time is stored in UTC with an explicit offset.",
)


@dataclass(frozen=True, slots=True)
class LabelledText:
    """One text of the set, with the fact and the pattern it states."""

    text: str
    fact: str  # pattern and value: texts of one fact are rewordings of each other
    pattern: str  # texts of one pattern and different facts are variants


def labelled_texts(seed: int = 26) -> list[LabelledText]:
    """Return the set's texts, shuffled by `seed`."""
    rng = random.Random(seed)
    items = []
    for number, (phrasings, values, negated) in enumerate(PATTERNS):
        pattern = f"p{number}"
        for value in values:
            for phrasing in phrasings:
                items.append(LabelledText(phrasing.format(x=value), f"{pattern}:{value}", pattern))
            if negated:
                items.append(
                    LabelledText(negated.format(x=value), f"{pattern}:not {value}", pattern)
                )
    for number, rule in enumerate(PREAMBLE_RULES):
        items.append(LabelledText(PREAMBLE + rule, f"preamble:{number}", f"preamble:{number}"))
    rng.shuffle(items)
    return items


def label(first: LabelledText, second: LabelledText) -> Relation:
    """Return what the pair is: one fact twice, one pattern about two things, or distinct."""
    if first.fact == second.fact:
        return REWORDING
    if first.pattern == second.pattern:
        return VARIANT
    return DISTINCT


def rewording_pairs(items: list[LabelledText]) -> set[frozenset[int]]:
    """Return the positions of every pair of texts that state one fact."""
    return {
        frozenset((i, j))
        for (i, first), (j, second) in combinations(enumerate(items), 2)
        if label(first, second) == REWORDING
    }

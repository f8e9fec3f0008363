"""The structure assistant's benchmark: a generated project of the proposal's shape, the
suggestions for it, and what they do to coverage, against issue 29's targets.

The project is the proposal's production figures: about 490 live memories in the six custom
categories (OPS_RULES about 230), SOPs and config dossiers kept as single memories, the rest
one-line facts from the demo's corpus. It is plain data (`core.ledger.LedgerMemory`), seeded,
so every run measures the same store; nothing touches a database.
"""

import random
import time
from dataclasses import dataclass

from memadmin.core.ledger import LedgerMemory, TokenCounter
from memadmin.core.structure import (
    HEADER_TOKEN_LIMIT,
    MAX_MEMBERS,
    StructureMemory,
    after_applying,
    effect_of,
    lost_lines,
    suggest,
)
from memadmin.devtools.demo import corpus
from memadmin.devtools.demo.builder import TEMPLATES

SEED = 20261202
NOW_MS = 1_790_000_000_000
DAY_MS = 86_400_000
BUDGETS = (1500, 4000)
SHAPE = {
    "OPS_RULES": 230,
    "ENV_STATE": 70,
    "CONFIG_VALUES": 65,
    "INCIDENTS": 45,
    "RESEARCH": 40,
    "MODEL_KNOWLEDGE": 40,
}
SOPS_PER_PROJECT = 16
DOSSIERS_PER_PROJECT = 10
# Targets of issue 29.
COVERAGE_GAIN = 2.0
SECONDS_AT_500 = 2.0
SECONDS_AT_100_000 = 60.0


def proposal_shaped(memories: int = sum(SHAPE.values()), *, seed: int = SEED) -> list[LedgerMemory]:
    """Return a project of the proposal's shape, scaled to about `memories` live memories."""
    rng = random.Random(seed)
    scale = memories / sum(SHAPE.values())
    texts: list[tuple[str, str]] = []
    seen: set[str] = set()

    def add(category: str, text: str) -> None:
        while text in seen:  # a second memory of the same words: a distinct fact
            text = f"{text} (seen again on node {rng.randint(1, 999)})"
        seen.add(text)
        texts.append((category, text))

    sop_names = list(corpus.SOPS)
    for n in range(round(SOPS_PER_PROJECT * scale)):
        name = sop_names[n % len(sop_names)]
        service = corpus.SERVICES[n % len(corpus.SERVICES)]
        steps = "\n".join(
            f"{i}. {step.replace('<service>', service)}"
            for i, step in enumerate(corpus.SOPS[name], start=1)
        )
        add("OPS_RULES", f"# {name}: {service}\n{steps}")
    dossier_names = list(corpus.DOSSIERS)
    for n in range(round(DOSSIERS_PER_PROJECT * scale)):
        name = dossier_names[n % len(dossier_names)]
        env = corpus.ENVIRONMENTS[n % len(corpus.ENVIRONMENTS)]
        settings = "\n".join(f"- {line}" for line in corpus.DOSSIERS[name])
        add("CONFIG_VALUES", f"{name} in {env}:\n{settings}")
    for category, count in SHAPE.items():
        made = sum(1 for c, _ in texts if c == category)
        for _ in range(max(0, round(count * scale) - made)):
            add(category, corpus.fill(rng.choice(TEMPLATES[category]), rng))
    return [
        LedgerMemory(
            id=number,
            category=category,
            content=text,
            status="active",
            importance=rng.choice([30, 40, 50, 50, 60, 70, 80, 90]),
            expires_at=None,
            superseded_by=None,
            last_seen_at=NOW_MS - rng.randint(0, 90) * DAY_MS,
            verified_at=None,
            updated_at=NOW_MS - rng.randint(0, 365) * DAY_MS,
        )
        for number, (category, text) in enumerate(texts, start=1)
    ]


@dataclass(frozen=True)
class StructureFigures:
    """What the benchmark measured on one generated project."""

    memories: int
    suggestions: int
    fragmented: int
    grouped: int
    themes: int
    seconds: float
    largest: int
    header_tokens: int
    header_limit: int
    lost: int
    coverage: list  # (budget, before share, after share) at each budget

    def lines(self, *, seconds_target: float) -> list[str]:
        """Return the report's lines, each target met or MISSED."""

        def verdict(ok: bool) -> str:
            return "met" if ok else "MISSED"

        out = [
            f"{self.memories} memories: {self.suggestions} suggestions ({self.fragmented} "
            f"monoliths to fragment, {self.grouped} families to group, {self.themes} themes over "
            f"them) in {self.seconds:.2f} s "
            f"(target < {seconds_target:.0f} s: {verdict(self.seconds < seconds_target)})"
        ]
        for budget, before, after in self.coverage:
            gain = after / before if before else float("inf")
            out.append(
                f"  at {budget} tokens: {before:.0%} of live memories reached in pack mode now, "
                f"{after:.0%} in headers mode after applying all ({gain:.2f}x; target >= "
                f"{COVERAGE_GAIN:.0f}x: {verdict(gain >= COVERAGE_GAIN)})"
            )
        out.append(
            f"  largest composite {self.largest} members (target <= {MAX_MEMBERS}: "
            f"{verdict(self.largest <= MAX_MEMBERS)}); longest header {self.header_tokens} "
            f"tokens (limit {self.header_limit}: {verdict(self.header_tokens <= self.header_limit)}); "
            f"lines lost {self.lost} (target 0: {verdict(self.lost == 0)})"
        )
        return out


def measure(
    memories: list[LedgerMemory],
    *,
    counter: TokenCounter,
    budgets=BUDGETS,
    header_limit: int = HEADER_TOKEN_LIMIT,
    coverage: bool = True,
) -> StructureFigures:
    """Return the suggestions' figures for the memories (coverage only if asked: it assembles)."""
    started = time.perf_counter()
    texts = [m.content for m in memories]
    count_many = getattr(counter, "count_many", None)
    tokens = count_many(texts) if count_many else [counter.count(t) for t in texts]
    found = suggest(
        [
            StructureMemory(m.id, m.category, m.content, n)
            for m, n in zip(memories, tokens, strict=True)
        ],
        counter=counter,
        header_limit=header_limit,
    )
    seconds = time.perf_counter() - started  # what a page or the command works out at once
    # The second round, once the first is applied: themes over the new category headers.
    found += suggest(
        _as_applied(memories, found, counter), counter=counter, header_limit=header_limit
    )
    by_id = {m.id: m for m in memories}
    lost = sum(
        len(lost_lines(by_id[s.source_id].content, s)) for s in found if s.source_id is not None
    )
    shares = []
    if coverage:
        for budget in budgets:
            effect = effect_of(memories, [], found, budget=budget, counter=counter, now_ms=NOW_MS)
            shares.append((budget, effect.before_share, effect.after_share))
    fragmented = sum(1 for s in found if s.source_id is not None)
    themes = sum(1 for s in found if s.kind == "theme")
    return StructureFigures(
        memories=len(memories),
        suggestions=len(found),
        fragmented=fragmented,
        grouped=len(found) - fragmented - themes,
        themes=themes,
        seconds=seconds,
        largest=max((len(s.details) for s in found), default=0),
        header_tokens=max((s.header_tokens for s in found), default=0),
        header_limit=header_limit,
        lost=lost,
        coverage=shares,
    )


def _as_applied(memories, found, counter) -> list[StructureMemory]:
    """Return the memories as the first round's suggestions leave them, category headers
    with their details' texts: what the second round reads."""
    after, composites, _ = after_applying(memories, [], found, NOW_MS)
    content = {m.id: m.content for m in after}
    details = {c.head_id: "\n".join(content[i] for i in c.member_ids) for c in composites}
    grouped = {i for c in composites for i in (c.head_id, *c.member_ids)}
    return [
        StructureMemory(
            m.id,
            m.category,
            m.content,
            counter.count(m.content),
            m.id in grouped,
            details.get(m.id),
        )
        for m in after
        if m.status == "active"
    ]

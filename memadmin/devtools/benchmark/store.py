"""Build the benchmark store: two projects, their memories and composites, in bulk.

The store is throwaway, so rows go in with bulk inserts (history included, written by the
"system" actor) rather than one service call each; the shapes are the ones the services
make: contiguous member positions, live heads, never a head among its own members.
"""

import random
from collections.abc import Callable
from dataclasses import dataclass

from simple_history.utils import bulk_create_with_history

from memadmin.accounts.services import person_create
from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite, CompositeMember
from memadmin.core.clock import now_ms
from memadmin.core.hashing import normalized_hash
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.projects.services import project_create
from memadmin.taxonomy.services import pack_install, pack_load

PACK = "magic-context"
CATEGORIES = ("PROJECT_RULES", "ARCHITECTURE", "CONSTRAINTS", "CONFIG_VALUES", "NAMING")
TYPES = tuple(Composite.Type.values)  # sequence, theme, cause, alternatives
BATCH = 2000
DAY_MS = 86_400_000
HISTORY = {
    "default_change_reason": "benchmark store",
    "custom_historical_attrs": {"history_actor": "system", "history_actor_kind": "agent"},
}
WORDS = [
    "deploy",
    "release",
    "config",
    "token",
    "budget",
    "header",
    "detail",
    "memory",
    "agent",
    "session",
    "cache",
    "index",
    "migration",
    "schema",
    "rollback",
    "pipeline",
    "tag",
    "build",
    "staging",
    "production",
    "latency",
    "timeout",
    "retry",
    "owner",
    "review",
    "policy",
    "category",
    "criteria",
    "historian",
    "dreamer",
    "ledger",
    "composite",
    "sequence",
    "theme",
    "東京",
    "データ",
    "서버",
    "설정",
    "résumé",
    "naïve",
    "façade",
]
CODE = (
    "`make release`",
    "`git tag v2.3.1`",
    "`PORT=8080`",
    "`SELECT id FROM memories`",
    "`--dry-run`",
)

USERNAME = "bench"
PASSWORD = "benchmark-password-not-secret"
# The person of each role the pages are timed as (the viewer keeps the old name).
READERS = {"viewer": USERNAME, "editor": "bench-editor", "admin": "bench-admin"}
HUB_COMPOSITES = 200  # the composites the "hub" memory is a member of, in the large project

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BenchStore:
    """The projects of the benchmark store and how much each holds."""

    small: Project
    large: Project
    memories: int
    composites: int
    hub: int = 0  # pk of a memory of the large project that is a member of many composites


def _content(rng: random.Random, number: int) -> str:
    words = rng.choices(WORDS, k=rng.randint(8, 60))
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), rng.choice(CODE))
    if rng.random() < 0.05:
        words.append("🚀")
    return f"Fact {number}: " + " ".join(words) + "."


def _memory(project: Project, rng: random.Random, number: int, now: int) -> Memory:
    content = _content(rng, number)
    created = now - rng.randint(DAY_MS, 365 * DAY_MS)
    updated = created + rng.randint(0, 30 * DAY_MS)
    roll = rng.random()
    status = "archived" if roll < 0.03 else "permanent" if roll < 0.08 else "active"
    return Memory(
        project=project,
        category=rng.choice(CATEGORIES),
        content=content,
        normalized_hash=normalized_hash(content),
        importance=None if rng.random() < 0.1 else min(100, max(1, int(rng.gauss(50, 12)))),
        source_type="historian",
        first_seen_at=created,
        created_at=created,
        updated_at=updated,
        last_seen_at=updated + rng.randint(0, 10 * DAY_MS),
        verified_at=updated if rng.random() < 0.2 else None,
        expires_at=now - DAY_MS if rng.random() < 0.01 else None,
        status=status,
    )


def _fill(project: Project, count: int, composites: int, rng: random.Random, first: int) -> int:
    """Add `count` memories and `composites` composites (five to nine members each).

    Return the pk of the "hub": a live memory heading nothing, made a member of up to
    HUB_COMPOSITES composites besides, as a memory everyone links to would be.
    """
    now = now_ms()
    memories = [_memory(project, rng, first + n, now) for n in range(count)]
    created: list[Memory] = []
    for start in range(0, count, BATCH):
        created += bulk_create_with_history(memories[start : start + BATCH], Memory, **HISTORY)
    _record_creations(project, created)
    live = [memory.pk for memory in created if memory.status != "archived"]
    rng.shuffle(live)
    heads, groups = [], []
    cursor = 0
    for number in range(composites):
        size = rng.randint(5, 9)
        head, members = live[cursor], live[cursor + 1 : cursor + 1 + size]
        cursor += 1 + size
        if number % 10 == 9:  # every tenth composite is a theme over the last three heads
            members = heads[-3:]
        heads.append(head)
        groups.append((head, list(members)))
    hub = live[cursor] if cursor < len(live) else live[-1]
    for _, members in groups[:HUB_COMPOSITES]:
        if hub not in members and hub not in heads:
            members.append(hub)
    rows = [
        Composite(
            project=project, type=TYPES[number % len(TYPES)], head_id=head, title=f"Group {number}"
        )
        for number, (head, _) in enumerate(groups)
    ]
    made = bulk_create_with_history(rows, Composite, batch_size=BATCH, **HISTORY)
    links = [
        CompositeMember(composite=composite, member_id=member, position=position)
        for composite, (_, members) in zip(made, groups, strict=True)
        for position, member in enumerate(members)
    ]
    bulk_create_with_history(links, CompositeMember, batch_size=BATCH, **HISTORY)
    return hub


def _record_creations(project: Project, memories: list[Memory]) -> None:
    """Write one "created" audit event per memory, so the history page has a store's worth."""
    events = [
        AuditEvent(
            actor_label="historian",
            actor_kind="agent",
            action="created",
            project=project,
            object_type="memory",
            object_id=str(memory.pk),
            object_repr=str(memory)[:200],
            category=memory.category,
        )
        for memory in memories
    ]
    AuditEvent.objects.bulk_create(events, batch_size=BATCH)


def build_store(*, memories: int, composites: int, small: int, progress: Progress) -> BenchStore:
    """Build a small project (`small` memories) and a large one holding the rest."""
    if not 0 < small < memories:
        raise ValueError("The small project must hold fewer memories than the whole store.")
    if composites * 10 > memories:
        raise ValueError("Give at least ten memories per composite.")
    rng = random.Random(20260401)
    for role, username in READERS.items():
        person_create(username=username, password=PASSWORD, role=role)
    spec = pack_load(PACK)
    projects = []
    for identity, name in (("git:" + "5" * 40, "Bench small"), ("git:" + "b" * 40, "Bench large")):
        project = project_create(identity=identity, name=name, actor="system")
        pack_install(project=project, spec=spec, actor="system")
        projects.append(project)
    small_project, large_project = projects
    small_composites = max(1, composites * small // memories)
    progress(f"building {small:,} memories and {small_composites:,} composites (small project)")
    _fill(small_project, small, small_composites, rng, first=1)
    large, large_composites = memories - small, composites - small_composites
    progress(f"building {large:,} memories and {large_composites:,} composites (large project)")
    hub = _fill(large_project, large, large_composites, rng, first=small + 1)
    return BenchStore(small_project, large_project, memories, composites, hub=hub)

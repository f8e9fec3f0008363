"""Build the demo store: an ops-six project shaped like the proposal's production figures
(about 480 active memories, about 230 of them OPS_RULES), and a magic-context project with
legacy-category rows. Seeded, so every run builds the same store; a second run changes nothing.
"""

import random
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from memadmin.audit.context import acting
from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create, composite_cursor_set
from memadmin.core.clock import now_ms
from memadmin.curation.merge_services import memory_merge
from memadmin.ledger.counters import choose_counter
from memadmin.memories.archive_services import memory_archive, memory_supersede
from memadmin.memories.models import Memory
from memadmin.memories.services import DuplicateMemory, memory_create, memory_update
from memadmin.projects.models import Project
from memadmin.projects.services import project_create
from memadmin.structure.apply_services import structure_apply
from memadmin.structure.suggestions import structure_plan
from memadmin.taxonomy.services import pack_install, pack_load

from . import corpus
from .history import authors, date_history, tell_story

OPS_IDENTITY = "git:9c1e4b7d2a6f8e0b3c5d7f9a1b2c4d6e8f0a1b3c"
PLUGIN_IDENTITY = "git:4f2a9d1c7e3b5a8f6d0c2e4a6b8d0f1e3a5c7b9d"
DAY_MS = 86_400_000
SEED = 20260916
ACTIVE_TARGETS = {
    "OPS_RULES": 198,
    "ENV_STATE": 70,
    "CONFIG_VALUES": 60,
    "INCIDENTS": 40,
    "RESEARCH": 35,
    "MODEL_KNOWLEDGE": 35,
}
TEMPLATES = {
    "OPS_RULES": corpus.OPS_RULE_TEMPLATES,
    "ENV_STATE": corpus.ENV_TEMPLATES,
    "CONFIG_VALUES": corpus.CONFIG_TEMPLATES,
    "INCIDENTS": corpus.INCIDENT_TEMPLATES,
    "RESEARCH": corpus.RESEARCH_TEMPLATES,
    "MODEL_KNOWLEDGE": corpus.MODEL_TEMPLATES,
}


@dataclass
class DemoSummary:
    created: bool
    projects: int = 0
    memories: int = 0
    composites: int = 0
    effects: list = field(default_factory=list)  # the structure assistant's, on Ops platform


class _Writer:
    """Write seeded memories through the services, with deterministic timestamps."""

    def __init__(self, project: Project, rng: random.Random, start_ms: int):
        self.project, self.rng, self.clock = project, rng, start_ms

    def tick(self) -> int:
        self.clock += self.rng.randint(5, 90) * 60_000
        return self.clock

    def write(self, category: str, content: str, **fields) -> Memory | None:
        try:
            return memory_create(
                project=self.project,
                category=category,
                content=content,
                actor="historian",
                source_type=fields.pop("source_type", "historian"),
                at_ms=self.tick(),
                **fields,
            )
        except DuplicateMemory:
            return None


def _composite(writer: _Writer, kind, head, members, title="") -> Composite:
    """Make a composite a millisecond after the last memory written (its head), in the story.

    Made at the build's own time instead, every edit the story dates before it would leave
    its header in sync. The writer's clock is read, not ticked: the seeded draws stay the same.
    """
    return composite_create(
        head=head,
        type=kind,
        members=members,
        title=title,
        actor="dreamer",
        at_ms=writer.clock + 1,
    )


def _fill_category(writer: _Writer, category: str, target: int) -> list[Memory]:
    made: list[Memory] = []
    attempts = 0
    while len(made) < target and attempts < target * 40:
        attempts += 1
        text = corpus.fill(writer.rng.choice(TEMPLATES[category]), writer.rng)
        importance = writer.rng.choice([None, 30, 40, 45, 50, 50, 50, 55, 60, 70, 80, 90])
        memory = writer.write(category, text, importance=importance)
        if memory is not None:
            made.append(memory)
    return made


def _build_map(project: Project, writer: _Writer) -> list[Composite]:
    """Fragmented SOPs and dossiers under headers: theme headers -> category headers -> details."""
    built: list[Composite] = []
    category_headers = []
    for title, steps in corpus.SOPS.items():
        details = [
            writer.write("OPS_RULES", f"{title}, step {i}: {step}", importance=50)
            for i, step in enumerate(steps, start=1)
        ]
        header = writer.write(
            "OPS_RULES",
            f"SOP: {title} ({len(steps)} steps). Fetch the steps in order before acting.",
            importance=90,
        )
        built.append(_composite(writer, "sequence", header, details, title=f"SOP: {title}"))
        category_headers.append(header)
    config_headers = []
    for title, settings in corpus.DOSSIERS.items():
        details = [writer.write("CONFIG_VALUES", text, importance=50) for text in settings]
        header = writer.write(
            "CONFIG_VALUES", f"Dossier: {title} ({len(settings)} settings).", importance=85
        )
        built.append(_composite(writer, "theme", header, details, title=f"Dossier: {title}"))
        config_headers.append(header)
    ops_theme = writer.write(
        "OPS_RULES",
        "Operations map: release, restore, rotation and node procedures; each SOP header lists its steps.",
        status="permanent",
        importance=95,
    )
    built.append(_composite(writer, "theme", ops_theme, category_headers, title="Operations"))
    config_theme = writer.write(
        "CONFIG_VALUES",
        "Configuration map: edge cache and database pool dossiers.",
        status="permanent",
        importance=95,
    )
    built.append(_composite(writer, "theme", config_theme, config_headers, title="Configuration"))
    return built


def _build_relations(project: Project, writer: _Writer, pool: dict[str, list[Memory]]) -> list:
    built = []
    rng = writer.rng
    for _ in range(3):
        decision = writer.write(
            "OPS_RULES",
            corpus.fill(
                "Decision: {service} deploys need a canary stage in {env} after repeated incidents.",
                rng,
            ),
            importance=80,
        )
        if decision is None:
            continue
        causes = rng.sample(pool["INCIDENTS"], 3)
        built.append(_composite(writer, "cause", decision, causes, title="Why canaries"))
    for _ in range(3):
        head = writer.write(
            "RESEARCH", corpus.fill("Options for scaling {service} queues.", rng), importance=60
        )
        if head is None:
            continue
        peers = rng.sample(pool["RESEARCH"], 3)
        built.append(_composite(writer, "alternatives", head, peers, title="Queue options"))
    rotation_head = writer.write(
        "OPS_RULES", "On-call rotation: the cursor marks whose week it is.", importance=70
    )
    people = [
        writer.write("OPS_RULES", f"On-call week for {name}: primary pager and release duty.")
        for name in ("Ana", "Bilal", "Chen", "Dana")
    ]
    rotation = _composite(writer, "sequence", rotation_head, people, title="On-call rotation")
    built.append(composite_cursor_set(composite=rotation, position=1, actor="dreamer"))
    return built


def _lifecycle_variety(writer: _Writer, pool: dict[str, list[Memory]]) -> None:
    """Make some permanent, archive some, supersede some, merge some: every status shows up."""
    rng = writer.rng
    for memory in rng.sample(pool["OPS_RULES"], 12):
        memory_update(memory=memory, status="permanent", actor="dreamer", at_ms=writer.tick())
    for memory in rng.sample(pool["ENV_STATE"], 6):
        memory_archive(
            memory=memory, actor="dreamer", reason="host decommissioned", at_ms=writer.tick()
        )
    for memory in rng.sample(pool["CONFIG_VALUES"], 4):
        successor = writer.write("CONFIG_VALUES", memory.content + " (revised after load test)")
        memory_supersede(
            memory=memory,
            successor=successor,
            actor="dreamer",
            reason="revised after load test",
            at_ms=writer.tick(),
        )
    for _ in range(3):
        sources = rng.sample(pool["INCIDENTS"], 2)
        memory_merge(
            memories=sources,
            content=" Also: ".join(s.content for s in sources),
            actor="dreamer",
            reason="same root cause",
            at_ms=writer.tick(),
        )
        for source in sources:
            pool["INCIDENTS"].remove(source)


def _apply_the_assistant(project: Project, *, at_ms: int) -> tuple[list[Composite], list]:
    """Structure the project as the structure assistant suggests, as a curator would apply it:
    the demo opens on the proposal's effect (headers mode reaching far more at the budget).
    Two rounds: fragments and families, then the themes over the new category headers.
    Return the composites made and the effect of the first round at 1,500 and 4,000 tokens."""
    counter = choose_counter().counter
    made: list[Composite] = []
    effects: list = []
    for round_number in range(2):
        budgets = (1500, 4000) if round_number == 0 else ()
        plan = structure_plan(project, counter=counter, budgets=budgets, now_ms=now_ms())
        if not plan.suggestions:
            break
        effects = effects or plan.effects
        applied = structure_apply(
            project=project,
            keys=[suggestion.key for suggestion in plan.suggestions],
            actor=authors()[1],  # chen, the demo's curator
            counter=counter,
            reason="Structured as the structure assistant suggested",
            at_ms=at_ms + round_number,
            shown=plan.suggestions,
            pk_of=plan.pk_of,
        )
        made += applied.composites
    return made, effects


def _build_plugin_project(rng: random.Random, start_ms: int) -> int:
    project = project_create(identity=PLUGIN_IDENTITY, name="magic-context plugin", actor="system")
    pack_install(project=project, spec=pack_load("magic-context"), actor="system")
    writer = _Writer(project, rng, start_ms)
    count = 0
    for category, templates in corpus.MC_TEMPLATES.items():
        for template in templates:
            for area in corpus.MC_AREAS[:4]:
                if writer.write(category, template.format(area=area)) is not None:
                    count += 1
    return count


@transaction.atomic
def demo_build(*, seed: int = SEED) -> DemoSummary:
    """Build the demo store unless it is already there (then change nothing)."""
    if Project.objects.filter(identity__in=[OPS_IDENTITY, PLUGIN_IDENTITY]).exists():
        return DemoSummary(created=False)
    since = timezone.now()  # everything written from here on is the demo's
    rng = random.Random(seed)
    start_ms = (now_ms() // DAY_MS - 60) * DAY_MS
    with acting(actor="system", reason="demo data"):
        project = project_create(identity=OPS_IDENTITY, name="Ops platform", actor="system")
        pack_install(project=project, spec=pack_load("ops-six"), actor="system")
        writer = _Writer(project, rng, start_ms)
        pool = {
            category: _fill_category(writer, category, target)
            for category, target in ACTIVE_TARGETS.items()
        }
        composites = _build_map(project, writer)
        composites += _build_relations(project, writer, pool)
        _lifecycle_variety(writer, pool)
        for category, text in corpus.LONG_MEMORIES:
            writer.write(category, text, importance=60)
        structured, effects = _apply_the_assistant(project, at_ms=writer.clock + 1)
        composites += structured
        plugin_count = _build_plugin_project(rng, start_ms)
        live = Memory.objects.filter(project=project, status=Memory.Status.ACTIVE).order_by("pk")
        tell_story(list(live), rng)
        date_history(since)
    return DemoSummary(
        created=True,
        projects=2,
        memories=Memory.objects.filter(project=project).count() + plugin_count,
        composites=len(composites),
        effects=effects,
    )

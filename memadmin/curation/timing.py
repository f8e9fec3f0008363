"""Measure curation on a large generated project: the analysis, its accuracy, the memory page.

Used by `manage.py curation_timing` inside a throwaway database: a project of planted
memories (see `corpus`) is written in bulk, optionally with a random 384-number vector per
memory (planted near-duplicates get nearly the same vector), then timed.
"""

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from memadmin.accounts.services import person_create
from memadmin.core.clock import now_ms
from memadmin.core.hashing import normalized_hash
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.projects.services import project_create
from memadmin.taxonomy.services import pack_install, pack_load

from .analysis import Computed, analysis_compute, analysis_save, project_fingerprint
from .corpus import PlantedCorpus, planted_corpus
from .embeddings import FLOAT32
from .models import MemoryEmbedding
from .selectors import Thresholds, duplicate_clusters, related_memories

CATEGORIES = ("PROJECT_RULES", "ARCHITECTURE", "CONSTRAINTS", "CONFIG_VALUES", "NAMING")
MODEL = "all-MiniLM-L6-v2"
BATCH = 5000
PASSWORD = "correct horse battery staple"

Progress = Callable[[str], None]


@dataclass(frozen=True)
class Timing:
    """One analysis run: wall and CPU seconds of computing and saving, and its accuracy."""

    memories: int
    compute_s: float
    compute_cpu_s: float
    save_s: float
    recall: float
    false_share: float
    variants_offered: int  # planted variants (one fact with another number) a cluster holds
    clusters: int
    model_id: str


def build_project(*, count: int, progress: Progress) -> tuple[Project, PlantedCorpus, list[int]]:
    """Write a project of `count` planted memories in bulk; return it, the corpus, the pks."""
    pairs = max(1, count // 100)
    corpus = planted_corpus(count=count, duplicate_pairs=pairs, unrelated_pairs=pairs)
    project = project_create(identity="git:" + "c" * 40, name="Curation timing", actor="system")
    pack_install(project=project, spec=pack_load("magic-context"), actor="system")
    now = now_ms()
    progress(
        f"writing {count:,} memories ({len(corpus.duplicates):,} planted rewordings, "
        f"{len(corpus.variants):,} planted variants)"
    )
    rows = [
        Memory(
            project=project,
            category=CATEGORIES[n % len(CATEGORIES)],
            content=text,
            normalized_hash=normalized_hash(text),
            importance=50,
            first_seen_at=now,
            created_at=now,
            updated_at=now + n,
            last_seen_at=now,
        )
        for n, text in enumerate(corpus.texts)
    ]
    made = Memory.objects.bulk_create(rows, batch_size=BATCH)
    return project, corpus, [memory.pk for memory in made]


def add_vectors(corpus: PlantedCorpus, pks: list[int], progress: Progress) -> None:
    """Store a random vector per memory; each planted rewording's or variant's is nearly its
    pair's (embeddings put a sentence with another number close to it, too)."""
    progress(f"writing {len(pks):,} vectors of {MODEL}")
    rng = np.random.default_rng(3)
    vectors = rng.standard_normal((len(pks), 384)).astype(FLOAT32)
    for first, second in [pair[:2] for pair in corpus.duplicates] + corpus.variants:
        vectors[second] = vectors[first] + 0.1 * rng.standard_normal(384)
    now = now_ms()
    MemoryEmbedding.objects.bulk_create(
        (
            MemoryEmbedding(
                memory_id=pk,
                model_id=MODEL,
                dimensions=384,
                vector=vectors[n].astype(FLOAT32).tobytes(),
                content_hash=normalized_hash(corpus.texts[n]),
                read_at=now,
            )
            for n, pk in enumerate(pks)
        ),
        batch_size=BATCH,
    )


def time_analysis(project: Project, corpus: PlantedCorpus, pks: list[int]) -> Timing:
    """Compute and save the project's analysis; return the times and the accuracy."""
    started, cpu = time.perf_counter(), time.process_time()
    fingerprint = project_fingerprint(project)
    computed: Computed = analysis_compute(project)
    compute_s, compute_cpu_s = time.perf_counter() - started, time.process_time() - cpu
    saving = time.perf_counter()
    analysis = analysis_save(
        project=project,
        computed=computed,
        fingerprint=fingerprint,
        duration_ms=int(compute_s * 1000),
    )
    save_s = time.perf_counter() - saving
    clusters = duplicate_clusters(analysis, Thresholds())
    found = {frozenset(p) for c in clusters for p in combinations(c.members, 2)}
    planted = {frozenset((pks[a], pks[b])) for a, b, _ in corpus.duplicates}
    return Timing(
        memories=computed.memories,
        compute_s=compute_s,
        compute_cpu_s=compute_cpu_s,
        save_s=save_s,
        recall=len(found & planted) / len(planted),
        false_share=len(found - planted) / len(found) if found else 0.0,
        variants_offered=len(found & {frozenset((pks[a], pks[b])) for a, b in corpus.variants}),
        clusters=len(clusters),
        model_id=computed.model_id,
    )


def time_related(pks: list[int], *, runs: int = 5) -> tuple[float, int]:
    """Return the related section's median time (ms) for one memory, and its queries."""
    memory = Memory.objects.get(pk=pks[len(pks) // 2])
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        assert related_memories(memory)
        times.append((time.perf_counter() - started) * 1000)
    with CaptureQueriesContext(connection) as queries:
        related_memories(memory)
    return statistics.median(times), len(queries)


def time_memory_page(pks: list[int], *, runs: int = 5) -> tuple[float, int]:
    """Return the memory page's median server time (ms) after a first request, and queries."""
    person = person_create(username="timer", password=PASSWORD, role="viewer")
    client = Client()
    client.force_login(person)
    url = reverse("memories:detail", args=[pks[len(pks) // 2]])
    client.get(url)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200 and b"Related memories" in response.content
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    return statistics.median(times), len(queries)

"""Fixtures for the curation tests: real upstream-shaped stores with planted pairs, synced."""

import sqlite3
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from memadmin.curation.corpus import PlantedCorpus, planted_corpus
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from tests.upstream_store import PROJECT, build_store, make_row

CATEGORIES = ("PROJECT_RULES", "ARCHITECTURE", "CONSTRAINTS", "CONFIG_VALUES", "NAMING")
# upstream's table, as the reference facts give it (the shared test store has an older shape)
EMBEDDINGS_DDL = """
CREATE TABLE memory_embeddings (
    memory_id INTEGER NOT NULL,
    embedding BLOB NOT NULL,
    model_id TEXT NOT NULL,
    PRIMARY KEY (memory_id, model_id)
)
"""


def write_embeddings(path: Path, rows: list[tuple[int, bytes, str]]) -> None:
    """Add a `memory_embeddings` table holding (memory id, vector bytes, model) rows."""
    connection = sqlite3.connect(path)
    with connection:
        connection.execute(EMBEDDINGS_DDL)
        connection.executemany(
            "INSERT INTO memory_embeddings (memory_id, embedding, model_id) VALUES (?, ?, ?)",
            rows,
        )
    connection.close()


def vector_bytes(vector) -> bytes:
    """Return a vector as upstream stores it: little-endian float32."""
    return np.asarray(vector, dtype="<f4").tobytes()


def synced_store(tmp_path: Path, texts: list[str], *, embeddings=None) -> Project:
    """Build a store holding `texts` (upstream ids 1..n), sync it, return the project."""
    rows = [
        make_row(id=n, content=text, category=CATEGORIES[n % len(CATEGORIES)])
        for n, text in enumerate(texts, start=1)
    ]
    path = build_store(tmp_path / "context.db", rows=rows, sessions=[], extra_tables=False)
    if embeddings is not None:
        write_embeddings(path, embeddings)
    context_db_sync(path=path, pack="magic-context")
    return Project.objects.get(identity=PROJECT)


def pks_by_position(project: Project) -> list[int]:
    """Return the memadmin pk of each text, in the order the texts were given."""
    by_upstream = dict(Memory.objects.filter(project=project).values_list("upstream_id", "pk"))
    return [by_upstream[n] for n in range(1, len(by_upstream) + 1)]


def reported_pairs(clusters: list[dict]) -> set[frozenset[int]]:
    """Return every pair of memories some cluster puts together."""
    return {frozenset(pair) for c in clusters for pair in combinations(c["ids"], 2)}


@pytest.fixture
def planted(tmp_path, db) -> tuple[Project, PlantedCorpus, list[int]]:
    """A synced store of 700 memories with 60 near-duplicate and 60 unrelated pairs planted."""
    corpus = planted_corpus(count=700, duplicate_pairs=60, unrelated_pairs=60, seed=5)
    project = synced_store(tmp_path, corpus.texts)
    return project, corpus, pks_by_position(project)


@pytest.fixture(autouse=True)
def tasks_run_at_once(settings):
    """Run the analysis task as it is enqueued: these tests are about its results, not the queue.

    The project's backend keeps tasks in the database for the worker (`manage.py run_worker`);
    the queue itself is tested with the sync's jobs.
    """
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}

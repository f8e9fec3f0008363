"""Read upstream's stored embeddings into memadmin, and give a project's usable vectors.

The store's `memory_embeddings(memory_id, embedding, model_id)` holds one little-endian
float32 vector per memory and model. `embeddings_import` copies a project's rows from its
bound store, opened read-only; `project_vectors` picks the model to use and says why any
vectors are left out (an unknown model, vectors of mixed or wrong dimensions, vectors older
than their memory's text). The rows are derived data, like the token-count cache: they are
replaced whole on each import and not audited.
"""

import re
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from django.db import transaction

from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError, open_readonly
from memadmin.interop.models import UpstreamProject
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

from .models import MemoryEmbedding

# Embedding models whose vectors curation uses, by name (any `owner/` or `provider:` prefix
# is ignored, case too), with the number of dimensions each gives.
KNOWN_MODELS = {
    "all-minilm-l6-v2": 384,
    "all-minilm-l12-v2": 384,
    "bge-small-en-v1.5": 384,
    "nomic-embed-text": 768,
    "nomic-embed-text-v1.5": 768,
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
}
BATCH = 2000
FLOAT32 = np.dtype("<f4")


@dataclass(frozen=True)
class ImportReport:
    """What an import read: rows kept per model, rows of other projects left out."""

    path: str
    kept: dict[str, int] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ProjectVectors:
    """The vectors of one model for some of a project's memories, and what was left out."""

    model_id: str
    memory_ids: list[int]
    matrix: np.ndarray | None
    notices: list[str]


def model_dimensions(model_id: str) -> int | None:
    """Return how many numbers a known model's vectors have, None for an unknown model."""
    return KNOWN_MODELS.get(re.split(r"[/:]", model_id.strip())[-1].lower())


def bound_store_path(project: Project) -> Path | None:
    """Return the path of the store the project syncs from, None when it has none."""
    link = UpstreamProject.objects.filter(project=project).select_related("store").first()
    return Path(link.store.path) if link is not None else None


def read_store_embeddings(path: str | Path) -> list[tuple[int, str, bytes]]:
    """Return the store's (memory id, model id, vector bytes) rows; none without the table."""
    connection = open_readonly(path)
    try:
        try:
            rows = connection.execute(
                "SELECT memory_id, model_id, embedding FROM memory_embeddings"
            ).fetchall()
        except sqlite3.OperationalError as error:
            if "no such table" in str(error):
                return []
            raise StoreError(f"{path}: memory_embeddings cannot be read ({error})") from error
    finally:
        connection.close()
    return [(int(m), str(model), bytes(blob)) for m, model, blob in rows if blob is not None]


def embeddings_import(*, project: Project, path: str | Path | None = None) -> ImportReport:
    """Replace the project's stored vectors with those its store holds now.

    `path` defaults to the project's bound store. Raise StoreError when the store cannot be
    read; nothing is changed then.
    """
    store = Path(path) if path is not None else bound_store_path(project)
    if store is None:
        return ImportReport(path="", notices=[f"{project.identity} is bound to no store."])
    rows = read_store_embeddings(store)
    by_upstream = dict(
        Memory.objects.filter(project=project, upstream_id__isnull=False).values_list(
            "upstream_id", "pk"
        )
    )
    hashes = dict(Memory.objects.filter(project=project).values_list("pk", "normalized_hash"))
    now = now_ms()
    kept: dict[str, int] = {}
    embeddings = []
    for upstream_id, model_id, blob in rows:
        memory_id = by_upstream.get(upstream_id)
        if memory_id is None:
            continue
        kept[model_id] = kept.get(model_id, 0) + 1
        embeddings.append(
            MemoryEmbedding(
                memory_id=memory_id,
                model_id=model_id,
                dimensions=len(blob) // FLOAT32.itemsize,
                vector=blob,
                content_hash=hashes[memory_id],
                read_at=now,
            )
        )
    with transaction.atomic():
        MemoryEmbedding.objects.filter(memory__project=project).delete()
        MemoryEmbedding.objects.bulk_create(embeddings, batch_size=BATCH)
    return ImportReport(path=str(store), kept=kept)


def _model_problem(model_id: str, sizes: list[int]) -> str:
    """Return why a model's vectors cannot be used ("" when they can)."""
    known = model_dimensions(model_id)
    if known is None:
        return "unknown model"
    distinct = sorted(set(sizes))
    if any(size % FLOAT32.itemsize for size in sizes) or len(distinct) > 1:
        shown = ", ".join(str(size / FLOAT32.itemsize).removesuffix(".0") for size in distinct)
        return f"vectors of mixed dimensions ({shown})"
    if distinct[0] != known * FLOAT32.itemsize:
        return f"vectors of {distinct[0] // FLOAT32.itemsize} numbers, not {known}"
    return ""


def project_vectors(project: Project) -> ProjectVectors:
    """Return the usable vectors of the model covering most of the project's live memories."""
    rows = (
        MemoryEmbedding.objects.filter(memory__project=project)
        .exclude(memory__status=Memory.Status.ARCHIVED)
        .order_by("memory_id")
        .values_list("memory_id", "model_id", "vector", "content_hash", "memory__normalized_hash")
        .iterator(chunk_size=BATCH)
    )
    by_model: dict[str, list[tuple[int, bytes, bool]]] = {}
    for memory_id, model_id, vector, read_hash, current_hash in rows:
        by_model.setdefault(model_id, []).append(
            (memory_id, bytes(vector), read_hash == current_hash)
        )
    notices = []
    usable = {}
    for model_id, items in sorted(by_model.items()):
        problem = _model_problem(model_id, [len(blob) for _, blob, _ in items])
        if problem:
            notices.append(
                f"Embeddings of model {model_id} ignored ({len(items)} rows): {problem}; "
                "similarity uses the texts instead."
            )
            continue
        usable[model_id] = items
    if not usable:
        return ProjectVectors(model_id="", memory_ids=[], matrix=None, notices=notices)
    model_id = max(usable, key=lambda name: (len(usable[name]), name))
    items = usable[model_id]
    stale = sum(1 for *_, fresh in items if not fresh)
    if stale:
        notices.append(
            f"{stale} vectors of model {model_id} predate their memory's text: those "
            "memories are compared by their texts."
        )
    fresh = [(memory_id, blob) for memory_id, blob, is_fresh in items if is_fresh]
    matrix = (
        np.frombuffer(b"".join(blob for _, blob in fresh), dtype=FLOAT32).reshape(len(fresh), -1)
        if fresh
        else None
    )
    return ProjectVectors(
        model_id=model_id,
        memory_ids=[memory_id for memory_id, _ in fresh],
        matrix=matrix,
        notices=notices,
    )

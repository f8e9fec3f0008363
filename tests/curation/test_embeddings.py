"""Stored embeddings: read read-only from the bound store, used when sound, else the texts."""

import json
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from memadmin.curation.analysis import analysis_refresh
from memadmin.curation.embeddings import embeddings_import, model_dimensions
from memadmin.curation.models import Analysis, MemoryEmbedding
from memadmin.curation.selectors import related_memories
from memadmin.curation.tasks import embeddings_refresh
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from tests.interop.conftest import sha256

from .conftest import pks_by_position, synced_store, vector_bytes

MODEL = "all-MiniLM-L6-v2"
# Six texts with no word in common: only their vectors can relate them.
TEXTS = [
    "Alpha bravo charlie.",
    "Delta echo foxtrot.",
    "Golf hotel india.",
    "Juliett kilo lima.",
    "Mike november oscar.",
    "Papa quebec romeo.",
]


def vectors(dimensions: int = 384) -> list[np.ndarray]:
    """Return six vectors: 2 is nearly 1, 3 close to 1, the rest unrelated."""
    rng = np.random.default_rng(7)
    base = [rng.standard_normal(dimensions) for _ in TEXTS]
    base[1] = base[0] + 0.05 * rng.standard_normal(dimensions)
    base[2] = base[0] + 0.8 * rng.standard_normal(dimensions)
    return base


def rows(model: str = MODEL, dimensions: int = 384) -> list[tuple[int, bytes, str]]:
    return [(n, vector_bytes(v), model) for n, v in enumerate(vectors(dimensions), start=1)]


def duplicates_json(project) -> tuple[dict, str]:
    out, err = StringIO(), StringIO()
    call_command("duplicates", "--project", project.identity, "--json", stdout=out, stderr=err)
    return json.loads(out.getvalue()), err.getvalue()


def test_related_memories_follow_the_stored_vectors(tmp_path, db):
    """With stored vectors, a memory's related ones are its nearest by embedding cosine."""
    project = synced_store(tmp_path, TEXTS, embeddings=rows())
    pks = pks_by_position(project)
    embeddings_refresh(project)
    analysis = analysis_refresh(project)
    assert analysis.model_id == MODEL
    related = related_memories(Memory.objects.get(pk=pks[0]))
    assert [item["memory"].pk for item in related[:2]] == [pks[1], pks[2]]
    assert {item["kind"] for item in related} == {"embedding"}
    assert related[0]["similarity"] > 0.99


def test_a_near_identical_vector_pair_is_an_embedding_cluster(tmp_path, db):
    """Two memories with no word in common but nearly the same vector are one cluster."""
    project = synced_store(tmp_path, TEXTS, embeddings=rows())
    pks = pks_by_position(project)
    result, _ = duplicates_json(project)
    assert result["clusters"] == [
        {
            "ids": sorted([pks[0], pks[1]]),
            "similarity": pytest.approx(1, abs=0.01),
            "kind": "embedding",
        }
    ]


def test_without_vectors_related_memories_are_lexical(tmp_path, db):
    """Without stored vectors the related memories come from the texts' shared words."""
    texts = [
        "Deploy the scheduler with make release on the staging cluster.",
        "The scheduler deploy uses make release, staging first.",
        "Tabs are for tables only.",
    ]
    project = synced_store(tmp_path, texts)
    pks = pks_by_position(project)
    analysis_refresh(project)
    related = related_memories(Memory.objects.get(pk=pks[0]))
    assert [item["memory"].pk for item in related] == [pks[1]]
    assert related[0]["kind"] == "lexical"


@pytest.mark.parametrize(
    ("embeddings", "notice"),
    [
        (
            rows()[:3] + rows(dimensions=100)[3:],
            f"Embeddings of model {MODEL} ignored (6 rows): vectors of mixed dimensions (100, 384)",
        ),
        (
            rows(model="mystery-embedder"),
            "Embeddings of model mystery-embedder ignored (6 rows): unknown model",
        ),
        (
            rows(dimensions=100),
            f"Embeddings of model {MODEL} ignored (6 rows): vectors of 100 numbers, not 384",
        ),
    ],
)
def test_unusable_vectors_are_ignored_with_a_notice(tmp_path, db, embeddings, notice):
    """Mixed dimensions or an unknown model: the vectors are ignored, the notice says which."""
    project = synced_store(tmp_path, TEXTS, embeddings=embeddings)
    result, err = duplicates_json(project)
    assert notice in err
    assert notice in Analysis.objects.get(project=project).notices[0]
    assert Analysis.objects.get(project=project).model_id == ""
    assert result["clusters"] == []  # the texts have nothing in common


def test_importing_never_writes_the_store(tmp_path, db):
    """The store's bytes are the same after its embeddings were read."""
    project = synced_store(tmp_path, TEXTS, embeddings=rows())
    path = tmp_path / "context.db"
    before = (sha256(path), sha256(path.with_name("context.db-wal")))
    report = embeddings_import(project=project)
    assert report.kept == {MODEL: 6}
    assert (sha256(path), sha256(path.with_name("context.db-wal"))) == before


def test_a_store_without_the_table_gives_no_vectors(tmp_path, db):
    """A store with no memory_embeddings table imports nothing and refuses nothing."""
    project = synced_store(tmp_path, TEXTS)
    assert embeddings_import(project=project).kept == {}
    assert not MemoryEmbedding.objects.exists()


def test_a_vector_older_than_its_text_is_not_used(tmp_path, db):
    """After a memory's text changes here, its stored vector is left out, with a notice."""
    project = synced_store(tmp_path, TEXTS, embeddings=rows())
    pks = pks_by_position(project)
    embeddings_import(project=project)
    memory_update(memory=Memory.objects.get(pk=pks[1]), content="Sierra tango.", actor="system")
    analysis = analysis_refresh(project)
    assert any("1 vectors of model" in notice for notice in analysis.notices)
    related = related_memories(Memory.objects.get(pk=pks[0]))
    assert pks[1] not in [item["memory"].pk for item in related]


def test_known_model_names_ignore_prefixes_and_case():
    """A model id's owner or provider prefix and its case do not matter."""
    assert model_dimensions("Xenova/all-MiniLM-L6-v2") == 384
    assert model_dimensions("local:ALL-MINILM-L6-V2") == 384
    assert model_dimensions("mystery-embedder") is None


def test_the_kept_result_is_used_again_for_a_store_with_vectors(tmp_path, db):
    """A second command reads neither the store nor computes again; --refresh does both."""
    project = synced_store(tmp_path, TEXTS, embeddings=rows())
    duplicates_json(project)
    first = Analysis.objects.get(project=project)
    duplicates_json(project)
    assert Analysis.objects.get(project=project).finished_at == first.finished_at
    call_command(
        "duplicates",
        "--project",
        project.identity,
        "--refresh",
        stdout=StringIO(),
        stderr=StringIO(),
    )
    assert Analysis.objects.get(project=project).fingerprint != first.fingerprint

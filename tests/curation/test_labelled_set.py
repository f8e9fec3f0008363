"""Precision and recall of the offered duplicates on the labelled set, by text and by vector.

The labelled set (`memadmin.curation.labelled_set`) holds rewordings (one fact said twice),
variants (one sentence pattern about another service, place, number, path or version, or
negated) and distinct facts behind one long preamble. A pair is offered when a cluster of
`manage.py duplicates` holds both memories. Without a model to download, the vectors are
simulated as embeddings behave: texts of one pattern lie close (cosine about 0.94, above the
0.9 threshold), texts of one fact closer still, other patterns far.
"""

import json
import random
from io import StringIO

import numpy as np
import pytest
from django.core.management import call_command

from memadmin.curation.corpus import vocabulary
from memadmin.curation.labelled_set import labelled_texts, rewording_pairs

from .conftest import pks_by_position, reported_pairs, synced_store, vector_bytes

MODEL = "all-MiniLM-L6-v2"
PRECISION, RECALL = 0.95, 0.90


def offered(project, err: StringIO | None = None) -> set[frozenset[int]]:
    out = StringIO()
    call_command(
        "duplicates", "--project", project.identity, "--json", stdout=out, stderr=err or StringIO()
    )
    return reported_pairs(json.loads(out.getvalue())["clusters"])


def simulated_vectors(items, dimensions: int = 384) -> list[tuple[int, bytes, str]]:
    """Return a vector per text: its pattern's, nudged by its fact's, a little noise."""
    rng = np.random.default_rng(26)
    unit = lambda v: v / np.linalg.norm(v)  # noqa: E731
    patterns, facts = {}, {}
    rows = []
    for n, item in enumerate(items, start=1):
        pattern = patterns.setdefault(item.pattern, unit(rng.standard_normal(dimensions)))
        fact = facts.setdefault(item.fact, unit(rng.standard_normal(dimensions)))
        vector = pattern + 0.25 * fact + 0.05 * unit(rng.standard_normal(dimensions))
        rows.append((n, vector_bytes(vector), MODEL))
    return rows


def precision_recall(project, items) -> tuple[float, float, int]:
    pks = pks_by_position(project)
    truth = {frozenset(pks[i] for i in pair) for pair in rewording_pairs(items)}
    found = offered(project)
    right = len(found & truth)
    return right / max(1, len(found)), right / len(truth), len(found)


@pytest.mark.parametrize("engine", ["lexical", "embedding"])
def test_offered_duplicates_are_rewordings_not_variants(tmp_path, db, engine):
    """Precision >= 95% at recall >= 90%, by the texts and by (simulated) vectors."""
    items = labelled_texts()
    embeddings = simulated_vectors(items) if engine == "embedding" else None
    project = synced_store(tmp_path, [item.text for item in items], embeddings=embeddings)
    precision, recall, found = precision_recall(project, items)
    assert precision >= PRECISION, (precision, recall, found)
    assert recall >= RECALL, (precision, recall, found)


PATTERNS = [
    "Feature flags of the {} service are read from Consul in staging.",
    "Restart the {} scheduler after a DNS TTL change.",
    "The {} worker writes its logs to the shared volume.",
    "Deploys of {} need a green canary for an hour.",
    "The {} team owns the alerts of the edge proxies.",
    "Backups of the {} database are kept for thirty days.",
    "Rotate the credentials of the {} bucket every quarter.",
    "The {} queue is drained before a schema migration.",
    "Pin the {} client library to the last minor release.",
    "Check the {} dashboard before approving a release.",
    "Requests to the {} API carry a tenant header.",
    "The {} cache is warmed after every deploy.",
    "Tag the {} images with the commit they were built from.",
    "Secrets of the {} job come from the vault, not from files.",
    "The {} cron runs in the maintenance window only.",
    "Traces of the {} gateway are sampled at one in ten.",
    "The {} index is rebuilt when its mapping changes.",
    "Email from the {} notifier goes through the relay.",
    "Preview environments of {} are deleted on Sunday night.",
    "The {} migration locks are released by the runner.",
]


def test_a_store_of_variants_suggests_no_archive(tmp_path, db):
    """2,000 variants of 20 sentence patterns (another service each): no duplicate offered."""
    names = vocabulary(random.Random(2000), 100)
    texts = [pattern.format(name) for pattern in PATTERNS for name in names]
    assert len(set(texts)) == 2000
    project = synced_store(tmp_path, texts)
    err = StringIO()
    assert offered(project, err) == set()
    assert "alike pairs not listed: variants" in err.getvalue()

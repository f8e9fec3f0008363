"""`manage.py duplicates`: planted near-duplicates are found, unrelated pairs are not."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from memadmin.curation.models import Analysis
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create

from .conftest import reported_pairs, synced_store


def duplicates(*args: str) -> dict:
    out, err = StringIO(), StringIO()
    call_command("duplicates", *args, "--json", stdout=out, stderr=err)
    return json.loads(out.getvalue())


def test_planted_pairs_found_with_few_false_ones(planted):
    """At least 90% of the planted rewordings are found, at most 10% of pairs are false, and
    no planted variant (the same fact with another number) nor unrelated pair is offered."""
    project, corpus, pks = planted
    result = duplicates("--project", project.identity)
    assert result["project"] == project.identity
    assert {c["kind"] for c in result["clusters"]} <= {"exact", "lexical", "embedding"}
    found = reported_pairs(result["clusters"])
    planted_pairs = {frozenset((pks[a], pks[b])) for a, b, _ in corpus.duplicates}
    unrelated = {frozenset((pks[a], pks[b])) for a, b in corpus.unrelated}
    assert len(found & planted_pairs) >= 0.9 * len(planted_pairs)
    assert len(found - planted_pairs) <= 0.1 * len(found)
    variants = {frozenset((pks[a], pks[b])) for a, b in corpus.variants}
    assert variants and not found & variants
    assert not found & unrelated
    for kind in ("reworded", "reordered"):
        of_kind = {frozenset((pks[a], pks[b])) for a, b, k in corpus.duplicates if k == kind}
        assert len(found & of_kind) >= 0.9 * len(of_kind), kind


def test_each_cluster_has_ids_similarity_and_kind_only(planted):
    """Each cluster has exactly the issue's keys, ids sorted, a similarity between 0 and 1."""
    project, _, _ = planted
    result = duplicates("--project", project.identity)
    assert set(result) == {"project", "clusters"}
    for cluster in result["clusters"]:
        assert set(cluster) == {"ids", "similarity", "kind"}
        assert cluster["ids"] == sorted(cluster["ids"]) and len(cluster["ids"]) >= 2
        assert 0 < cluster["similarity"] <= 1


def test_a_threshold_reclusters_without_computing_again(planted):
    """Another threshold re-clusters the kept pairs; no threshold offers two distinct facts."""
    project, _, _ = planted
    default = reported_pairs(duplicates("--project", project.identity)["clusters"])
    finished = Analysis.objects.get(project=project).finished_at
    strict = reported_pairs(
        duplicates("--project", project.identity, "--threshold", "1")["clusters"]
    )
    loose = reported_pairs(
        duplicates("--project", project.identity, "--threshold", "0.3")["clusters"]
    )
    assert strict <= default == loose
    assert Analysis.objects.get(project=project).finished_at == finished


def test_exact_duplicates_across_categories(tmp_path, db):
    """The same text in two categories is an exact cluster of similarity 1."""
    project = synced_store(tmp_path, ["Deploy with make release.", "Tabs only in tables."])
    first = Memory.objects.get(project=project, upstream_id=1)
    copy = memory_create(
        project=project, category="NAMING", content="deploy  with MAKE release.", actor="system"
    )
    result = duplicates("--project", project.identity)
    assert result["clusters"] == [
        {"ids": sorted([first.pk, copy.pk]), "similarity": 1.0, "kind": "exact"}
    ]


def test_one_memory_or_nothing_in_common_gives_no_clusters(tmp_path, db):
    """A project of one memory, or whose memories share no word, has no clusters."""
    project = synced_store(tmp_path, ["Alpha beta gamma."])
    assert duplicates("--project", project.identity)["clusters"] == []
    memory_create(project=project, category="NAMING", content="Delta epsilon zeta.", actor="system")
    assert duplicates("--project", project.identity)["clusters"] == []


def test_a_memory_change_makes_the_result_stale(planted):
    """The kept result is used until a memory changes; then it is computed again."""
    project, _, _ = planted
    duplicates("--project", project.identity)
    first = Analysis.objects.get(project=project).fingerprint
    duplicates("--project", project.identity)
    assert Analysis.objects.get(project=project).fingerprint == first
    memory_create(project=project, category="NAMING", content="A new fact.", actor="system")
    duplicates("--project", project.identity)
    assert Analysis.objects.get(project=project).fingerprint != first


@pytest.mark.parametrize("value", ["0.1", "1.5"])
def test_a_threshold_out_of_range_is_refused(planted, value):
    """A threshold below the kept pairs' floor or above 1 is refused, naming the range."""
    project, _, _ = planted
    with pytest.raises(CommandError, match=r"between 0\.3 and 1"):
        duplicates("--project", project.identity, "--threshold", value)


def test_an_unknown_project_is_refused(db):
    """An unknown project identity is refused by name."""
    with pytest.raises(CommandError, match="No project 'git:nope'"):
        duplicates("--project", "git:nope")


def test_one_text_in_three_categories_is_one_cluster(tmp_path, db):
    """Every two of three copies are an exact pair, so the three make one clique."""
    project = synced_store(tmp_path, ["Deploy with make release.", "Tabs only in tables."])
    first = Memory.objects.get(project=project, upstream_id=1)
    copies = [
        memory_create(project=project, category=category, content=text, actor="system")
        for category, text in (
            ("NAMING", "deploy  with MAKE release."),
            ("CONSTRAINTS", "DEPLOY with make   release."),
        )
    ]
    result = duplicates("--project", project.identity)
    assert result["clusters"] == [
        {"ids": sorted([first.pk] + [c.pk for c in copies]), "similarity": 1.0, "kind": "exact"}
    ]

"""Fragmenting a memory: details, header, composite and archive in one audited transaction."""

import pytest
from django.core.exceptions import ValidationError

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.composites.services import composite_create
from memadmin.core.fragments import proposed_summary
from memadmin.headermap.models import HeaderSync
from memadmin.headermap.stale_selectors import stale_header_count
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from memadmin.structure.fragment_lines import offsets_of
from memadmin.structure.fragment_services import PreviewOutdated, memory_fragment

pytestmark = pytest.mark.django_db

SOP = (
    "Release SOP\n\n1. Build with make release.\n2. Tag with git tag vX.\n"
    "3. Announce it in #releases."
)


@pytest.fixture
def long_memory(remember):
    return remember(SOP, importance=60)


def fragment(memory, lines=(3, 4, 5), **overrides):
    arguments = {
        "memory": memory,
        "boundaries": offsets_of(memory.content, list(lines)),
        "composite_type": "sequence",
        "summary": "Release SOP: build, tag, announce.",
        "actor": "agent",
    }
    arguments.update(overrides)
    return memory_fragment(**arguments)


def test_fragmenting_makes_details_header_composite_and_archives_the_original(long_memory):
    """The details come in order under a high-importance header; the original points at it."""
    result = fragment(long_memory)
    assert [d.content for d in result.details] == [
        "Release SOP",
        "1. Build with make release.",
        "2. Tag with git tag vX.",
        "3. Announce it in #releases.",
    ]
    assert all(d.category == "OPS_RULES" and d.importance == 60 for d in result.details)
    assert result.header.content == "Release SOP: build, tag, announce."
    assert result.header.importance == 90
    composite = Composite.objects.get(head=result.header)
    assert composite.type == "sequence"
    assert list(composite.members.values_list("member_id", flat=True)) == [
        d.pk for d in result.details
    ]
    original = Memory.objects.get(pk=long_memory.pk)
    assert original.status == "archived" and original.superseded_by_id == result.header.pk
    assert original.content == SOP


def test_fragmenting_is_audited_once_as_fragmented(long_memory):
    """One "fragmented" event names the header, the details and the composite."""
    result = fragment(long_memory, reason="too long to inject")
    event = AuditEvent.objects.get(action="fragmented")
    assert event.object_id == str(long_memory.pk) and event.reason == "too long to inject"
    assert event.changes["header"] == result.header.pk
    assert event.changes["details"] == [d.pk for d in result.details]
    assert event.changes["composite"] == result.composite.pk


def test_a_fresh_header_is_in_sync(long_memory):
    """The new header counts as synced with its details."""
    result = fragment(long_memory)
    assert HeaderSync.objects.get(header=result.header).synced_at == result.header.created_at
    assert stale_header_count() == 0


def test_composites_citing_the_original_now_cite_the_header(long_memory, remember):
    """A composite the original belonged to gets the header in its place."""
    theme = remember("Operations dossier.")
    composite_create(head=theme, type="theme", members=[long_memory], actor="agent")
    result = fragment(long_memory)
    dossier = Composite.objects.get(head=theme)
    assert list(dossier.members.values_list("member_id", flat=True)) == [result.header.pk]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"summary": "   "}, "Write the header's summary"),
        ({"composite_type": "cause"}, "sequence"),
        ({"boundaries": []}, "at least 2 fragments"),
        ({"header_importance": 0}, "between 1 and 100"),
    ],
)
def test_bad_input_is_refused_and_nothing_written(long_memory, overrides, message):
    """Refusals name the problem and leave the store as it was."""
    before = (Memory.objects.count(), Composite.objects.count(), AuditEvent.objects.count())
    with pytest.raises(ValidationError, match=message):
        fragment(long_memory, **overrides)
    after = (Memory.objects.count(), Composite.objects.count(), AuditEvent.objects.count())
    assert before == after
    assert Memory.objects.get(pk=long_memory.pk).status == "active"


def test_an_empty_detail_is_refused_and_nothing_written(long_memory):
    """Boundaries that would make a whitespace-only detail are refused."""
    before = Memory.objects.count()
    boundaries = [SOP.index("\n\n") + 1, SOP.index("\n\n") + 2]
    with pytest.raises(ValidationError, match="would be empty"):
        fragment(long_memory, boundaries=boundaries)
    assert Memory.objects.count() == before


def test_a_fragment_equal_to_an_existing_memory_is_named(long_memory, remember):
    """A detail identical to a memory of its category is refused, naming both."""
    existing = remember("2. Tag with git tag vX.")
    with pytest.raises(ValidationError, match=f"Fragment 3 is the same text as #{existing.pk}"):
        fragment(long_memory)
    assert Memory.objects.get(pk=long_memory.pk).status == "active"
    assert not Composite.objects.exists()


def test_an_archived_memory_is_not_fragmented(long_memory):
    """Only a live memory is fragmented."""
    result = fragment(long_memory)
    with pytest.raises(ValidationError, match="is archived"):
        fragment(Memory.objects.get(pk=long_memory.pk))
    assert Composite.objects.count() == 1 and result


def test_a_text_changed_since_its_preview_is_not_split(long_memory):
    """Split only the version previewed: an edit since then refuses it, nothing written."""
    previewed = long_memory.updated_at
    boundaries = offsets_of(long_memory.content, [3, 4, 5])
    memory_update(memory=long_memory, content=SOP.replace("vX", "v2"), actor="agent")
    before = (Memory.objects.count(), AuditEvent.objects.count())
    with pytest.raises(PreviewOutdated, match="changed since this split was previewed"):
        fragment(long_memory, boundaries=boundaries, expected_updated_at=previewed)
    assert (Memory.objects.count(), AuditEvent.objects.count()) == before
    assert Memory.objects.get(pk=long_memory.pk).status != Memory.Status.ARCHIVED


def test_the_version_previewed_is_split(long_memory):
    """The version the preview split lets the split through."""
    made = fragment(long_memory, expected_updated_at=long_memory.updated_at)
    assert len(made.details) == 4


FAILOVER = (
    "# Failover of the primary database\n\n"
    "1. Stop writes: set the service read-only.\n"
    "2. Promote the replica with pg_ctl promote.\n"
    "3. Point the service at the new primary and lift read-only."
)


def test_the_title_heading_lives_in_the_header_and_in_no_detail(remember):
    """Split with its proposed summary, the heading is the header's text; detail 1 is step 1,
    and every line of the original is in the header or a detail."""
    memory = remember(FAILOVER)
    result = fragment(memory, lines=(4, 5), summary=proposed_summary(FAILOVER))
    assert result.header.content == "Failover of the primary database"
    assert [d.content for d in result.details] == [
        "1. Stop writes: set the service read-only.",
        "2. Promote the replica with pg_ctl promote.",
        "3. Point the service at the new primary and lift read-only.",
    ]
    kept = [result.header.content, *(d.content for d in result.details)]
    for line in filter(None, FAILOVER.splitlines()):
        assert any(line.lstrip("# ") in text for text in kept), line

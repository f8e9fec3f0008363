"""The demo store: the proposal's figures, every kind of block, and idempotence."""

import pytest
from django.core.management import call_command
from django.db.models import Count

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.core.clock import now_ms
from memadmin.core.ledger.reader import CATEGORY_PRIORITY
from memadmin.core.tokens import HeuristicCounter
from memadmin.devtools.demo.builder import OPS_IDENTITY, PLUGIN_IDENTITY
from memadmin.ledger.counters import CounterChoice
from memadmin.ledger.never_injected import never_injected_summary
from memadmin.ledger.selectors import ledger_preview
from memadmin.memories.models import Memory
from memadmin.projects.models import Project

pytestmark = pytest.mark.django_db

HEURISTIC = CounterChoice(HeuristicCounter())


def test_demo_builds_the_proposals_store_once_and_seeded(capsys):
    """About 480 active memories, about 230 OPS_RULES, all statuses, all composite types; its
    history and its composites tell its story and the stock plugin reads only its
    CONFIG_VALUES (below); built again, nothing changes; built anew from the same seed, it
    writes the same texts.

    One first build for all of them: building the demo is most of each check's time.
    """
    call_command("demo")
    the_demo_project_injects_only_what_the_stock_plugin_knows()
    texts = list(Memory.objects.order_by("pk").values_list("category", "content"))
    counts = dict(Memory.objects.values_list("category").annotate(n=Count("id")))
    the_demos_history_tells_a_story_in_its_own_time()
    the_demos_composites_are_made_in_its_story()
    ops = Memory.objects.filter(project__identity=OPS_IDENTITY)
    live = ops.exclude(status="archived")
    # The proposal's ~480 facts, with the structure assistant's headers and details on top.
    assert 460 <= live.count() <= 560
    assert 220 <= live.filter(category="OPS_RULES").count() <= 270
    assert ops.filter(status="permanent").exists()
    assert ops.filter(status="archived", superseded_by__isnull=False).exists()
    assert ops.exclude(merged_from=[]).exists()
    types = set(
        Composite.objects.filter(project__identity=OPS_IDENTITY).values_list("type", flat=True)
    )
    assert types == {"sequence", "theme", "cause", "alternatives"}
    # The two-layer map: a theme header whose members head composites of their own.
    theme_heads = Composite.objects.filter(type="theme", head__status="permanent")
    assert any(
        Composite.objects.filter(head__in=c.members.values("member")).exists() for c in theme_heads
    )
    legacy = Memory.objects.filter(project__identity=PLUGIN_IDENTITY, category="WORKFLOW_RULES")
    assert legacy.exists()

    before = (Memory.objects.count(), Composite.objects.count(), AuditEvent.objects.count())
    call_command("demo")
    assert (Memory.objects.count(), Composite.objects.count(), AuditEvent.objects.count()) == before
    assert "nothing changed" in capsys.readouterr().out

    # Seeded: a second build from the same seed, on an empty store, writes the same texts.
    Memory.objects.all().delete()
    Project.objects.all().delete()
    call_command("demo", "--no-people")
    assert list(Memory.objects.order_by("pk").values_list("category", "content")) == texts
    assert dict(Memory.objects.values_list("category").annotate(n=Count("id"))) == counts


def the_demos_history_tells_a_story_in_its_own_time():
    """Versions and events are dated in the weeks the memories span, by people and agents."""
    from django.utils import timezone

    events = AuditEvent.objects.filter(project__identity=OPS_IDENTITY)
    build_time = timezone.now() - timezone.timedelta(minutes=5)
    assert not events.filter(created_at__gte=build_time).exists()
    actors = set(events.values_list("actor_label", flat=True))
    assert {"ana", "chen", "historian", "dreamer", "agent"} <= actors
    last_week = timezone.now() - timezone.timedelta(days=7)
    assert events.filter(created_at__gte=last_week, actor_kind="person").exclude(reason="").exists()
    memory = Memory.objects.filter(project__identity=OPS_IDENTITY).order_by("pk").first()
    first = memory.history.order_by("history_id").first()
    assert first.history_date.timestamp() * 1000 == memory.created_at
    from django.db.models.functions import Length

    long_ones = Memory.objects.filter(project__identity=OPS_IDENTITY).annotate(n=Length("content"))
    assert long_ones.filter(n__gte=280).count() >= 3


def the_demos_composites_are_made_in_its_story():
    """Each composite is made right after its memories; the stale queue holds the story's edits.

    The on-call rotation's steps were written after its head but before their composite, so
    it is in sync; a header whose step the story edited later is stale.
    """
    from memadmin.headermap.stale_selectors import stale_headers

    for composite in Composite.objects.filter(project__identity=OPS_IDENTITY):
        # At once (the structure assistant makes a header and its composite together), or after.
        assert composite.made_at >= composite.head.created_at
        # The members it was made with (a merge's result takes its source's place later).
        made_with = [row.member for row in composite.members.select_related("member")]
        made_with = [memory for memory in made_with if not memory.merged_from]
        assert made_with and composite.made_at >= max(m.created_at for m in made_with)
    rotation = Composite.objects.get(title="On-call rotation")
    entries = stale_headers()
    assert entries and rotation.head_id not in {entry.header.pk for entry in entries}
    assert all(
        entry.since < max(c.detail.updated_at for c in entry.changes)
        for entry in entries
        if entry.changes
    )


def the_demo_project_injects_only_what_the_stock_plugin_knows():
    """Of the six-category demo project only CONFIG_VALUES is read by the stock plugin
    (tests/ledger/test_stock_reader.py reads stores the way it does); every other row is named."""
    project = Project.objects.get(identity=OPS_IDENTITY)
    now = now_ms()
    preview = ledger_preview(
        project, budget=20000, counter=HEURISTIC, now_ms=now, modes=("plugin", "pack")
    )
    plugin = preview.results["plugin"]
    live = [
        m
        for m in Memory.objects.filter(project=project, status__in=("active", "permanent"))
        if m.expires_at is None or m.expires_at > now
    ]
    expected = {
        m.upstream_id or m.pk: m.category for m in live if m.category not in CATEGORY_PRIORITY
    }
    assert {row.memory_id: row.category for row in plugin.dropped} == expected
    assert {row.category for row in plugin.dropped} == {
        "OPS_RULES",
        "ENV_STATE",
        "INCIDENTS",
        "RESEARCH",
        "MODEL_KNOWLEDGE",
    }
    assert set(plugin.by_category) == {"CONFIG_VALUES"}
    assert preview.results["pack"].rendered.startswith("<project-memory>\n<OPS_RULES>\n")
    summary = never_injected_summary(project, now_ms=now)
    assert summary.count == len(expected)
    assert dict(summary.by_reason)[
        "magic-context does not know the category OPS_RULES: never injected"
    ] == sum(1 for category in expected.values() if category == "OPS_RULES")

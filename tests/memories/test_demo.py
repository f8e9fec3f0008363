"""The demo store: the proposal's figures, every kind of block, and idempotence."""

import pytest
from django.core.management import call_command
from django.db.models import Count

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import Composite
from memadmin.memories.demo.builder import OPS_IDENTITY, PLUGIN_IDENTITY
from memadmin.memories.models import Memory

pytestmark = pytest.mark.django_db


def test_demo_builds_the_proposals_store_once(capsys):
    """About 480 active memories, about 230 OPS_RULES, all statuses, all composite types."""
    call_command("demo")
    ops = Memory.objects.filter(project__identity=OPS_IDENTITY)
    live = ops.exclude(status="archived")
    assert 460 <= live.count() <= 500
    assert 220 <= live.filter(category="OPS_RULES").count() <= 240
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


def test_demo_is_seeded():
    """Two builds from the same seed write the same texts."""
    call_command("demo", "--no-people")
    texts = list(Memory.objects.order_by("pk").values_list("category", "content"))
    counts = dict(Memory.objects.values_list("category").annotate(n=Count("id")))
    Memory.objects.all().delete()
    from memadmin.memories.models import Project

    Project.objects.all().delete()
    call_command("demo", "--no-people")
    assert list(Memory.objects.order_by("pk").values_list("category", "content")) == texts
    assert dict(Memory.objects.values_list("category").annotate(n=Count("id"))) == counts

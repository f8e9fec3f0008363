"""A sequence's "put the cursor on step" box is rendered from CursorForm: a select, or a number."""

import pytest
from django.urls import reverse
from pytest_django.asserts import assertContains

from memadmin.composites.forms import CursorForm
from memadmin.composites.services import composite_create, composite_cursor_advance

pytestmark = pytest.mark.django_db


def test_the_steps_are_a_select_on_the_cursors_step(client_as, make_memories):
    """Each step is an option naming its memory; the cursor's step is selected."""
    head, *members = make_memories(4)
    sequence = composite_create(head=head, type="sequence", members=members, actor="agent")
    composite_cursor_advance(composite=sequence, actor="agent")
    response = client_as("editor").get(reverse("composites:detail", args=[sequence.pk]))
    options = "".join(
        f'<option value="{n}"{" selected" if n == 2 else ""}>{n} · #{m.display_id}</option>'
        for n, m in enumerate(members, 1)
    )
    assertContains(
        response, f'<select name="position" id="cursor-step">{options}</select>', html=True
    )
    assertContains(response, '<label for="cursor-step">Put the cursor on step</label>', html=True)


def test_a_long_sequence_gets_a_number_box(make_memories, monkeypatch):
    """Beyond SELECT_LIMIT steps the step is typed, from 1 to the last."""
    head, *members = make_memories(4)
    sequence = composite_create(head=head, type="sequence", members=members, actor="agent")
    monkeypatch.setattr("memadmin.composites.forms.SELECT_LIMIT", 2)
    form = CursorForm.for_composite(sequence, list(sequence.members.all()))
    assert str(form["position"]) == (
        '<input type="number" name="position" value="1" id="cursor-step" min="1" max="3">'
    )

"""Any run of edits keeps a sequence's order rules: positions 0..n-1, the cursor on its member.

Each example applies random edits through the services and, after every one, compares the
database with a plain list that models what the edit should have done (both engines).
"""

import pytest
from django.core.exceptions import ValidationError
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memadmin.composites.models import CompositeMember
from memadmin.composites.services import (
    composite_create,
    composite_cursor_advance,
    composite_cursor_back,
    composite_cursor_set,
    composite_member_add,
    composite_member_move,
    composite_member_remove,
)

pytestmark = pytest.mark.django_db

# Adding is listed thrice so that sequences grow long enough for the other edits to matter.
OPERATIONS = ("add", "add", "add", "remove", "remove at cursor", "move", "set", "advance", "back")
EDITS = st.lists(
    st.tuples(st.sampled_from(OPERATIONS), st.integers(0, 9), st.integers(0, 9)), max_size=14
)


class Model:
    """What a sequence should hold: member ids in order and the cursor's index."""

    def __init__(self):
        self.ids: list[int] = []
        self.cursor = 0

    def _follow(self, cursor_id: int | None, fallback: int = 0) -> None:
        if cursor_id in self.ids:
            self.cursor = self.ids.index(cursor_id)
        else:
            self.cursor = fallback % len(self.ids) if self.ids else 0

    def at_cursor(self) -> int | None:
        return self.ids[self.cursor] if self.ids else None

    def add(self, memory_id: int, position: int) -> bool:
        if memory_id in self.ids or position > len(self.ids):
            return False
        cursor_id = self.at_cursor()
        self.ids.insert(position, memory_id)
        self._follow(cursor_id)
        return True

    def remove(self, memory_id: int) -> None:
        cursor_id = self.at_cursor()
        self.ids.remove(memory_id)
        self._follow(cursor_id, fallback=self.cursor)

    def move(self, memory_id: int, position: int) -> bool:
        if position >= len(self.ids):
            return False
        cursor_id = self.at_cursor()
        self.ids.remove(memory_id)
        self.ids.insert(position, memory_id)
        self._follow(cursor_id)
        return True


def stored(composite) -> tuple[list[int], list[int], int]:
    rows = CompositeMember.objects.filter(composite=composite).order_by("position")
    composite.refresh_from_db()
    return (
        list(rows.values_list("member_id", flat=True)),
        list(rows.values_list("position", flat=True)),
        composite.cursor,
    )


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(edits=EDITS)
@example(edits=[("add", 0, 0), ("add", 1, 1), ("add", 2, 2), ("set", 1, 0), ("remove", 1, 0)])
@example(edits=[("add", 0, 0), ("add", 1, 1), ("back", 0, 0), ("remove at cursor", 0, 0)])
def test_any_edits_keep_positions_contiguous_and_the_cursor_on_its_member(make_memories, edits):
    """After each edit, accepted or refused, the database matches the model."""
    head, *pool = make_memories(7)
    composite = composite_create(head=head, type="sequence", actor="agent")
    model = Model()
    for operation, a, b in edits:
        size = len(model.ids)
        accepted = True
        try:
            if operation == "add":
                memory = pool[a % len(pool)]
                position = b % (size + 2)
                accepted = model.add(memory.pk, position)
                composite_member_add(
                    composite=composite, members=[memory], position=position, actor="agent"
                )
            elif not size:
                accepted = False
                composite_cursor_advance(composite=composite, actor="agent")
            elif operation.startswith("remove"):
                member_id = (
                    model.at_cursor() if operation == "remove at cursor" else model.ids[a % size]
                )
                model.remove(member_id)
                composite_member_remove(
                    composite=composite, member=_memory(pool, member_id), actor="agent"
                )
            elif operation == "move":
                member_id = model.ids[a % size]
                position = b % (size + 1)
                accepted = model.move(member_id, position)
                composite_member_move(
                    composite=composite,
                    member=_memory(pool, member_id),
                    position=position,
                    actor="agent",
                )
            elif operation == "set":
                position = a % (size + 1)
                accepted = position < size
                if accepted:
                    model.cursor = position
                composite_cursor_set(composite=composite, position=position, actor="agent")
            elif operation == "advance":
                model.cursor = (model.cursor + 1) % size
                composite_cursor_advance(composite=composite, actor="agent")
            else:
                model.cursor = (model.cursor - 1) % size
                composite_cursor_back(composite=composite, actor="agent")
        except ValidationError:
            assert not accepted, (operation, a, b)
        else:
            assert accepted, (operation, a, b)
        ids, positions, cursor = stored(composite)
        assert ids == model.ids
        assert positions == list(range(len(ids)))
        assert cursor == model.cursor
        assert head.pk not in ids


def _memory(pool, memory_id: int):
    return next(memory for memory in pool if memory.pk == memory_id)

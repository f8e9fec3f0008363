"""Each memory's stored size and content digest follow its text on every write path, on
both engines."""

import pytest
from django.db import connection

from memadmin.core.hashing import content_digest64
from memadmin.core.tokens import HeuristicCounter
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory, MemorySize
from memadmin.memories.services import memory_create, memory_update
from tests.audit.test_admin import MEMORY, change_form
from tests.upstream_store import build_store, make_row

pytestmark = pytest.mark.django_db
COUNT = HeuristicCounter().count


def sizes() -> dict[int, int]:
    return dict(MemorySize.objects.values_list("memory_id", "tokens"))


def expected() -> dict[int, int]:
    return {pk: COUNT(text) for pk, text in Memory.objects.values_list("pk", "content")}


def digests() -> dict[int, int]:
    return dict(MemorySize.objects.values_list("memory_id", "content_digest"))


def expected_digests() -> dict[int, int]:
    return {pk: content_digest64(text) for pk, text in Memory.objects.values_list("pk", "content")}


def test_a_size_is_kept_through_create_edit_and_delete(project):
    """Made, edited (astral characters count two UTF-16 units) and deleted: always in step."""
    memory = memory_create(project=project, category="OPS_RULES", content="Short.", actor="agent")
    assert sizes() == expected() == {memory.pk: COUNT("Short.")}
    assert digests() == {memory.pk: content_digest64("Short.")}
    text = "Ship it 🚀🚀🚀 on the 東京 cluster, " + "x" * 40
    memory_update(memory=memory, actor="agent", content=text)
    assert sizes()[memory.pk] == COUNT(text) == (2 * (len(text) + 3) + 6) // 7
    assert digests() == {memory.pk: content_digest64(text)}
    Memory.objects.filter(pk=memory.pk).delete()
    assert sizes() == {} and digests() == {}


def test_rows_written_in_bulk_and_by_a_sync_are_sized(project, tmp_path):
    """A bulk insert and a sync's own bulk statements leave no memory without its size."""
    Memory.objects.bulk_create(
        [
            Memory(
                project=project,
                category="OPS_RULES",
                content=f"Bulk {n} ✓",
                normalized_hash=f"{n:032x}",
                first_seen_at=1,
                created_at=1,
                updated_at=1,
                last_seen_at=1,
            )
            for n in range(5)
        ]
    )
    context_db_sync(path=build_store(tmp_path / "context.db", rows=[make_row(content="🧭 north")]))
    assert Memory.objects.count() == 6
    assert sizes() == expected()
    assert digests() == expected_digests()


# The digest of a few texts, as `content_digest64` gives it: the first 8 bytes of MD5, signed.
KNOWN_DIGESTS = {
    "Short.": content_digest64("Short."),
    "a & b < c > d": content_digest64("a & b < c > d"),
    "🧭 north, 東京, café": content_digest64("🧭 north, 東京, café"),
}


def test_the_digest_is_the_first_eight_bytes_of_md5_signed():
    """The Python function both engines' digests are checked against, by hand."""
    assert content_digest64("") == int.from_bytes(bytes.fromhex("d41d8cd98f00b204"), "big") - 2**64
    assert content_digest64("Short.") == int.from_bytes(
        bytes.fromhex(__import__("hashlib").md5(b"Short.").hexdigest()[:16]), "big", signed=True
    )
    assert content_digest64("\udcff") == int.from_bytes(
        __import__("hashlib").md5(b"\xed\xb3\xbf").digest()[:8], "big", signed=True
    )


def test_the_database_computes_the_same_digest_as_python(project):
    """Escapable, non-ASCII and astral texts: the engine's own digest is the Python one (so
    SQLite and PostgreSQL store the same number for the same text)."""
    with connection.cursor() as cursor:
        for text, digest in KNOWN_DIGESTS.items():
            cursor.execute("SELECT memadmin_content_digest(%s)", [text])
            assert cursor.fetchone()[0] == digest
    made = [
        memory_create(project=project, category="OPS_RULES", content=text, actor="agent")
        for text in KNOWN_DIGESTS
    ]
    assert digests() == {memory.pk: KNOWN_DIGESTS[memory.content] for memory in made}


def test_an_admin_edit_writes_the_new_digest(client_as, project):
    """The Django admin edits through the service: the size row follows the new text."""
    memory = memory_create(project=project, category="OPS_RULES", content="Old.", actor="agent")
    text = "New & improved <text> ✓"
    response = change_form(
        client_as("admin"),
        f"/admin/memories/memory/{memory.pk}/change/",
        {**MEMORY, "content": text, "reason": "typo"},
    )
    assert response.status_code == 302
    assert Memory.objects.get(pk=memory.pk).content == text
    assert digests() == {memory.pk: content_digest64(text)}
    assert sizes() == {memory.pk: COUNT(text)}


@pytest.mark.django_db(transaction=True)
def test_the_migration_gives_every_memory_its_digest_and_the_triggers_keep_it(project):
    """Rows made before migration 0010 get their digest; the triggers write it from then on,
    and back at 0009 they write the size alone again."""
    from django.db.migrations.executor import MigrationExecutor

    before_digest = [("memories", "0009_index_triggers_suspendable")]
    executor = MigrationExecutor(connection)
    leaf = executor.loader.graph.leaf_nodes()
    executor.migrate(before_digest)
    try:
        old = executor.loader.project_state(before_digest).apps
        OldMemory = old.get_model("memories", "Memory")
        fields = {"first_seen_at": 1, "created_at": 1, "updated_at": 1, "last_seen_at": 1}
        made = OldMemory.objects.create(
            project_id=project.pk,
            category="OPS_RULES",
            content="Before 🧭.",
            normalized_hash="1",
            **fields,
        )
        edited = OldMemory.objects.create(
            project_id=project.pk,
            category="OPS_RULES",
            content="Draft.",
            normalized_hash="2",
            **fields,
        )
        OldMemory.objects.filter(pk=edited.pk).update(content="Edited & <kept>.")
        sized = old.get_model("memories", "MemorySize").objects.values_list("memory_id", "tokens")
        assert dict(sized) == {made.pk: COUNT("Before 🧭."), edited.pk: COUNT("Edited & <kept>.")}
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(leaf)
    assert digests() == expected_digests() and len(digests()) == 2
    later = memory_create(project=project, category="OPS_RULES", content="After.", actor="agent")
    memory_update(memory=Memory.objects.get(pk=edited.pk), actor="agent", content="Again.")
    assert digests() == expected_digests() and digests()[later.pk] == content_digest64("After.")
    assert sizes() == expected()

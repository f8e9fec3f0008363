"""Merge memories into one the person writes, and undo such a merge.

A merge follows upstream's lifecycle rule: the sources share one category; the result's
`merged_from` is the sorted union of their ids; counters are summed; it is permanent if any
source was; the sources become archived with `superseded_by` set to the result. Composites
ride along (Proposal 2's compression fate): every head or member that was a source now
points at the result (`composites_repoint`). A merge writes memories and composites, so it
is curation's, above both.

Ids in `merged_from` are our primary keys, as everywhere in this database; the memory
page resolves them. A synced store's upstream ids are each memory's `upstream_id`, and an
export to upstream translates through it.

The whole merge is one transaction and one "merged" audit event on the result, which
records everything `memory_merge_undo` needs: the sources' prior status, metadata and
`updated_at`, and each composite's state before and after.
"""

from collections.abc import Mapping, Sequence

from django.core.exceptions import ValidationError
from django.db import transaction

from memadmin.audit.actors import as_actor
from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.composites.repoint_services import composites_repoint, composites_restore
from memadmin.composites.selectors import memory_cited
from memadmin.core.clock import now_ms
from memadmin.core.hashing import normalized_hash
from memadmin.memories.models import Memory
from memadmin.memories.revision_fields import revision_for
from memadmin.memories.selectors import MERGE_ACTION, memories_version, merge_event
from memadmin.memories.services import CONTENT_MAX_CHARS, DuplicateMemory
from memadmin.projects.store import StoreChange, store_backend


class StaleMerge(ValidationError):
    """A source was saved since the merge page listed them; `sources` are as they are now.

    `unseen` is for a merge that did not say which versions it was made from.
    """

    def __init__(self, sources: list[Memory], *, unseen: bool = False):
        self.sources = sources
        super().__init__(
            "This merge did not say which versions of the memories it was written from, so it "
            "could archive a newer text. The memories as they are now are listed; nothing was "
            "merged."
            if unseen
            else "Someone saved one of these memories since this page was loaded. They are "
            "listed as they are now, your text kept; nothing was merged.",
            code="stale",
        )


def _refuse_sources(sources: list[Memory], wanted: int) -> None:
    if wanted < 2:
        raise ValidationError(
            {"memories": "A merge takes two or more memories; choose at least one more."},
            code="too_few",
        )
    if len(sources) < wanted:
        raise ValidationError({"memories": "One of the memories to merge no longer exists."})
    if len({memory.project_id for memory in sources}) > 1:
        raise ValidationError(
            {"memories": "These memories belong to different projects; a merge stays in one."},
            code="cross_project",
        )
    categories = sorted({memory.category for memory in sources})
    if len(categories) > 1:
        raise ValidationError(
            {
                "memories": (
                    "A merge stays within one category; these span "
                    f"{', '.join(categories)}. Recategorise first, or merge each group apart."
                )
            },
            code="cross_category",
        )
    archived = [memory for memory in sources if memory.status == Memory.Status.ARCHIVED]
    if archived:
        raise ValidationError(
            {"memories": f"#{archived[0].display_id} is archived; restore it before merging."},
            code="archived",
        )


def _refuse_content(content: str, sources: list[Memory]) -> str:
    if not content or not content.strip():
        raise ValidationError({"content": "Write the merged memory's text."})
    if len(content) > CONTENT_MAX_CHARS:
        raise ValidationError(
            {"content": f"A memory holds at most {CONTENT_MAX_CHARS} characters."}
        )
    digest = normalized_hash(content)
    same = next((memory for memory in sources if memory.normalized_hash == digest), None)
    if same is not None:
        raise ValidationError(
            {
                "content": (
                    f"This text is the same as #{same.display_id}'s (up to case and spaces); "
                    "change it, or archive the other memories instead of merging."
                )
            },
            code="same_as_source",
        )
    first = sources[0]
    existing = Memory.objects.filter(
        project_id=first.project_id, category=first.category, normalized_hash=digest
    ).first()
    if existing is not None:
        raise DuplicateMemory(existing)
    return digest


def _source_type(actor) -> str:
    resolved = as_actor(actor)
    if resolved.kind == "person":
        return Memory.SourceType.USER
    if resolved.label in Memory.SourceType.values:
        return resolved.label
    return Memory.SourceType.AGENT


def _result_fields(sources: list[Memory], importance: int | None, now: int) -> dict:
    permanent = any(memory.status == Memory.Status.PERMANENT for memory in sources)
    scopes = {memory.scope for memory in sources}
    importances = [memory.importance for memory in sources if memory.importance is not None]
    retrieved = [m.last_retrieved_at for m in sources if m.last_retrieved_at is not None]
    first = sources[0]
    ttl_days = (
        first.project.categories.filter(name=first.category)
        .values_list("ttl_days", flat=True)
        .first()
    )
    return {
        "project_id": first.project_id,
        "category": first.category,
        "importance": importance if importance is not None else max(importances, default=None),
        "scope": scopes.pop() if len(scopes) == 1 else Memory.Scope.PROJECT,
        "shareable": all(memory.shareable for memory in sources),
        "seen_count": sum(memory.seen_count for memory in sources),
        "retrieval_count": sum(memory.retrieval_count for memory in sources),
        "first_seen_at": min(memory.first_seen_at for memory in sources),
        "created_at": now,
        "updated_at": now,
        "last_seen_at": now,
        "last_retrieved_at": max(retrieved, default=None),
        "status": Memory.Status.PERMANENT if permanent else Memory.Status.ACTIVE,
        "expires_at": now + ttl_days * 86_400_000 if ttl_days and not permanent else None,
        "merged_from": sorted(memory.pk for memory in sources),
    }


@transaction.atomic
def memory_merge(
    *,
    memories: Sequence[Memory],
    content: str,
    actor,
    importance: int | None = None,
    reason: str = "",
    at_ms: int | None = None,
    expected_version: str | None = None,
    expected_revisions: Mapping[int, int] | None = None,
) -> Memory:
    """Merge two or more memories of one category into a new one with the given text.

    The importance defaults to the highest of the sources'. Refused, with nothing written:
    fewer than two memories, several projects or categories, an archived source, empty
    text, or text identical to a source's or to another memory of the category. If
    `expected_version` (`memories_version` of the sources shown) is given and one of
    them was saved since, StaleMerge is raised. `expected_revisions` (the sources' store
    revisions the page read, by id) are compared in the store's transaction: a source the
    agent revised since refuses the merge (StoreRowChanged), nothing written.
    """
    ids = sorted({memory.pk for memory in memories})
    sources = list(
        Memory.objects.select_for_update(of=("self",))
        .select_related("project")
        .filter(pk__in=ids)
        .order_by("pk")
    )
    if expected_version is not None and expected_version != memories_version(sources):
        raise StaleMerge(sources)
    _refuse_sources(sources, len(ids))
    if importance is not None and not (isinstance(importance, int) and 1 <= importance <= 100):
        raise ValidationError({"importance": "Importance must be between 1 and 100."})
    digest = _refuse_content(content, sources)
    now = at_ms if at_ms is not None else now_ms()
    with acting(actor=actor, reason=reason):
        result = Memory.objects.create(
            content=content,
            normalized_hash=digest,
            source_type=_source_type(actor),
            **_result_fields(sources, importance, now),
        )
        prior = {}
        for source in sources:
            prior[str(source.pk)] = {
                "status": source.status,
                "metadata": dict(source.metadata or {}),
                "expires_at": source.expires_at,
            }
            source.status = Memory.Status.ARCHIVED
            source.superseded_by = result
            source.metadata = {
                **(source.metadata or {}),
                "archive_reason": f"merged into {result.pk}",
            }
            source.updated_at = max(now, source.updated_at + 1)
            prior[str(source.pk)]["archived_at"] = source.updated_at
        # The store takes the whole merge in one transaction, or memadmin writes none of it.
        receipt = store_backend().write_memories(
            project=result.project,
            changes=[StoreChange(result, "create")]
            + [
                StoreChange(source, "supersede", reason, revision_for(expected_revisions, source))
                for source in sources
            ],
        )
        if result.upstream_id is not None:
            # The result's row and its one version were saved before the store named its id.
            Memory.objects.filter(pk=result.pk).update(upstream_id=result.upstream_id)
            Memory.history.filter(id=result.pk).update(upstream_id=result.upstream_id)
        for source in sources:
            source.save()
        receipt.settle()
        for source in sources:
            audit_record(
                action="superseded",
                target=source,
                project=source.project,
                category=source.category,
                changes={
                    "status": [prior[str(source.pk)]["status"], "archived"],
                    "superseded_by": [None, result.pk],
                },
            )
        composites = composites_repoint(source_ids=ids, result_id=result.pk)
        audit_record(
            action=MERGE_ACTION,
            target=result,
            project=result.project,
            category=result.category,
            changes={
                "content": content,
                "merged_from": ids,
                "sources": prior,
                "composites": composites,
                "result_updated_at": result.updated_at,
            },
        )
    return result


@transaction.atomic
def memory_merge_undo(*, result: Memory, actor, reason: str = "") -> list[Memory]:
    """Undo a merge: restore the sources and the composites, and delete the result.

    Refused when the result, a source or a composite touched by the merge has changed
    since, or another memory has been superseded by the result (the history then shows what
    to revert by hand). Return the restored sources.
    """
    result = (
        Memory.objects.select_for_update(of=("self",)).select_related("project").get(pk=result.pk)
    )
    event = merge_event(result)
    if event is None:
        raise ValidationError(f"#{result.display_id} was not made by a merge here.")
    record = event.changes
    if result.updated_at != record["result_updated_at"]:
        raise ValidationError(
            f"#{result.display_id} was edited after the merge; revert that edit first."
        )
    prior = record["sources"]
    prior_ids = [int(pk) for pk in prior]
    sources = list(
        Memory.objects.select_for_update(of=("self",)).filter(pk__in=prior_ids).order_by("pk")
    )
    moved = [
        source
        for source in sources
        if source.superseded_by_id != result.pk
        or source.status != Memory.Status.ARCHIVED
        or source.updated_at != prior[str(source.pk)]["archived_at"]
    ]
    if moved or len(sources) != len(prior):
        raise ValidationError(
            "A merged memory changed or was deleted after the merge; "
            "the merge cannot be undone automatically."
        )
    successor_of = (
        Memory.objects.filter(superseded_by=result).exclude(pk__in=prior_ids).order_by("pk").first()
    )
    if successor_of is not None:
        raise ValidationError(
            f"#{successor_of.display_id} was superseded by #{result.display_id} after the merge; "
            "point it elsewhere first, or the undo would leave it superseded by nothing."
        )
    now = now_ms()
    with acting(actor=actor, reason=reason):
        composites_restore(records=record["composites"])
        if memory_cited(result):
            raise ValidationError(
                f"#{result.display_id} was added to composites after the merge; "
                "remove it from them first."
            )
        for source in sources:
            was = prior[str(source.pk)]
            source.status = was["status"]
            source.metadata = was["metadata"]
            source.expires_at = was["expires_at"]
            source.superseded_by = None
            source.updated_at = max(now, source.updated_at + 1)
        receipt = store_backend().write_memories(
            project=result.project,
            changes=[StoreChange(source) for source in sources] + [StoreChange(result, "delete")],
        )
        for source in sources:
            source.save()
        receipt.settle()
        for source in sources:
            audit_record(
                action="restored",
                target=source,
                project=source.project,
                category=source.category,
                changes={"status": ["archived", source.status], "superseded_by": [result.pk, None]},
            )
        audit_record(
            action="merge_undone",
            target=result,
            project=result.project,
            category=result.category,
            changes={"content": result.content, "merged_from": record["merged_from"]},
        )
        result.delete()
    return sources

"""Write memories. Each service validates, writes, and records its audit event in one transaction.

Projects are written in projects.services; archiving and superseding in archive_services.
"""

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.core.clock import now_ms
from memadmin.core.hashing import normalized_hash
from memadmin.projects.models import Project
from memadmin.projects.store import StoreChange, store_backend
from memadmin.taxonomy.selectors import categories_of, category_names

from .archive_services import forget_archive_reason, mark_archived
from .models import Memory

EDITABLE_FIELDS = ("content", "category", "importance", "scope", "shareable", "status")
CONTENT_MAX_CHARS = 20_000


class DuplicateMemory(ValidationError):
    """An identical memory already exists in the category; `existing` is that memory."""

    def __init__(self, existing: Memory):
        self.existing = existing
        super().__init__(
            {
                "content": (
                    f"An identical memory already exists in {existing.category}: "
                    f"#{existing.display_id}."
                )
            },
            code="duplicate",
        )


class StaleEdit(ValidationError):
    """Someone else saved the memory since this edit began; `current` is their version.

    `unseen` is for an edit that did not say which version it began from: it could be
    overwriting any save, so it is refused as a stale one is.
    """

    def __init__(self, current: Memory, *, unseen: bool = False):
        self.current = current
        super().__init__(
            "This save did not say which version of the memory it edits, so it could "
            "overwrite a newer one. The memory as it is now is shown beside yours; nothing "
            "was overwritten."
            if unseen
            else "Someone else saved this memory while you were editing it. "
            "Their version is shown beside yours; nothing was overwritten.",
            code="stale",
        )


def _validate_fields(
    *, project: Project, fields: dict, categories: list[str] | None = None
) -> None:
    """Raise ValidationError by field for any value outside the rules; `categories` are the
    project's category names when the caller has read them already."""
    errors: dict[str, str] = {}
    if "content" in fields:
        content = fields["content"]
        if not content or not content.strip():
            errors["content"] = "A memory needs some content."
        elif len(content) > CONTENT_MAX_CHARS:
            errors["content"] = f"A memory holds at most {CONTENT_MAX_CHARS} characters."
    if "category" in fields:
        allowed = category_names(project) if categories is None else categories
        if fields["category"] not in allowed:
            errors["category"] = (
                f"{fields['category']!r} is not a category of {project.name}'s pack; "
                f"choose one of: {', '.join(allowed) or '(no pack installed)'}."
            )
    if "importance" in fields:
        importance = fields["importance"]
        if importance is not None and not (isinstance(importance, int) and 1 <= importance <= 100):
            errors["importance"] = "Importance must be a whole number between 1 and 100."
    for name, choices in (
        ("scope", Memory.Scope.values),
        ("status", Memory.Status.values),
        ("source_type", Memory.SourceType.values),
    ):
        if name in fields and fields[name] not in choices:
            errors[name] = f"{name} must be one of: {', '.join(choices)}."
    if errors:
        raise ValidationError(errors)


def _existing_duplicate(*, project, category, digest, exclude_pk=None) -> Memory | None:
    duplicates = Memory.objects.filter(project=project, category=category, normalized_hash=digest)
    if exclude_pk is not None:
        duplicates = duplicates.exclude(pk=exclude_pk)
    return duplicates.first()


@transaction.atomic
def memory_create(
    *,
    project: Project,
    category: str,
    content: str,
    actor,
    importance: int | None = 50,
    scope: str = Memory.Scope.PROJECT,
    shareable: bool = False,
    status: str = Memory.Status.ACTIVE,
    source_type: str = Memory.SourceType.USER,
    source_session_id: str = "",
    reason: str = "",
    at_ms: int | None = None,
) -> Memory:
    """Create a memory; an exact duplicate in the same category is refused (DuplicateMemory)."""
    fields = {
        "category": category,
        "content": content,
        "importance": importance,
        "scope": scope,
        "status": status,
        "source_type": source_type,
    }
    # The category's name is checked and its time to live read in one query.
    ttl_days_of = dict(categories_of(project).values_list("name", "ttl_days"))
    _validate_fields(project=project, fields=fields, categories=list(ttl_days_of))
    digest = normalized_hash(content)
    existing = _existing_duplicate(project=project, category=category, digest=digest)
    if existing is not None:
        raise DuplicateMemory(existing)
    now = at_ms if at_ms is not None else now_ms()
    ttl_days = ttl_days_of[category]
    with acting(actor=actor, reason=reason):
        memory = Memory(
            project=project,
            category=category,
            content=content,
            normalized_hash=digest,
            importance=importance,
            scope=scope,
            shareable=shareable,
            status=status,
            source_type=source_type,
            source_session_id=source_session_id,
            first_seen_at=now,
            created_at=now,
            updated_at=now,
            last_seen_at=now,
            expires_at=now + ttl_days * 86_400_000 if ttl_days else None,
        )
        # The store first (it sets upstream_id); memadmin's row only if the store committed.
        receipt = store_backend().write_memories(
            project=project, changes=[StoreChange(memory, "create")]
        )
        memory.save(force_insert=True)
        receipt.settle()
        audit_record(
            action="created",
            target=memory,
            project=project,
            category=category,
            changes={"content": content, "category": category, "status": status},
        )
    return memory


@transaction.atomic
def memory_update(
    *,
    memory: Memory,
    actor,
    expected_updated_at: int | None = None,
    expected_revision: int | None = None,
    reason: str = "",
    at_ms: int | None = None,
    action: str | None = None,
    **changes,
) -> Memory:
    """Edit a memory's content, category, importance, scope, shareable flag or status.

    A content change recomputes the hash and, as upstream does, resets `shareable` and
    `classified_at`. Only the fields whose value changes are checked and written: a value
    outside today's rules (a category the pack lacks) is kept when unchanged, and a call that
    changes nothing writes nothing. If `expected_updated_at` is given and the memory changed since, the save
    is refused with StaleEdit and nothing is written; given `expected_revision` (the store row's
    revision the page showed), a store row whose revision moved since is refused
    (StoreRowChanged) with nothing written. The audit event's action is `action`
    if given (a revert records "reverted"), else named from what changed. Archiving keeps
    `reason` in the metadata as `memory_archive` does; taking an archived memory back to active
    or permanent drops the archive reason from its metadata.
    """
    unknown = set(changes) - set(EDITABLE_FIELDS)
    if unknown:
        raise ValidationError(f"These fields cannot be edited here: {', '.join(sorted(unknown))}.")
    current = Memory.objects.select_for_update().get(pk=memory.pk)
    if expected_updated_at is not None and current.updated_at != expected_updated_at:
        raise StaleEdit(current)
    # Only what changes is checked: a value the store holds outside today's rules (a
    # category of another pack) stays as it is; changing into one is refused.
    diff = {
        name: [getattr(current, name), value]
        for name, value in changes.items()
        if getattr(current, name) != value
    }
    _validate_fields(project=current.project, fields={name: new for name, (_, new) in diff.items()})
    if (
        current.superseded_by_id is not None
        and changes.get("status", Memory.Status.ARCHIVED) != Memory.Status.ARCHIVED
    ):
        raise ValidationError(
            {
                "status": (
                    f"Memory #{current.display_id} was superseded; it stays archived beside its "
                    "successor. Undo the merge or fragmentation instead."
                )
            }
        )
    if not diff:
        return current
    for name, value in changes.items():
        setattr(current, name, value)
    if "content" in diff:
        current.normalized_hash = normalized_hash(current.content)
        current.classified_at = None
        if "shareable" not in changes:
            current.shareable = False
    if "content" in diff or "category" in diff:
        existing = _existing_duplicate(
            project=current.project,
            category=current.category,
            digest=current.normalized_hash,
            exclude_pk=current.pk,
        )
        if existing is not None:
            raise DuplicateMemory(existing)
    now = at_ms if at_ms is not None else now_ms()
    if diff.get("status", [None, None])[1] == Memory.Status.ARCHIVED:
        # As every archive does: the reason is kept in the metadata (the diff has the status).
        mark_archived(current, reason=reason, now=now)
    else:
        current.updated_at = max(now, current.updated_at + 1)
    action = action or _update_action(diff)
    if "status" in diff and diff["status"][0] == Memory.Status.ARCHIVED:
        diff |= forget_archive_reason(current)
    with acting(actor=actor, reason=reason):
        receipt = store_backend().write_memories(
            project=current.project,
            changes=[StoreChange(current, reason=reason, expected_revision=expected_revision)],
        )
        try:
            with transaction.atomic():
                current.save()
                receipt.settle()
        except IntegrityError as error:
            raise ValidationError(f"The store refused this change: {error}") from error
        audit_record(
            action=action,
            target=current,
            project=current.project,
            category=current.category,
            changes=diff,
        )
    return current


def _update_action(diff: dict) -> str:
    """Name the change: archived, restored (archived to live), status_changed, recategorised."""
    if set(diff) == {"status"}:
        old, new = diff["status"]
        if new == Memory.Status.ARCHIVED:
            return "archived"
        return "restored" if old == Memory.Status.ARCHIVED else "status_changed"
    if set(diff) == {"category"}:
        return "recategorised"
    return "edited"


@transaction.atomic
def memory_write_or_bump(
    *,
    project: Project,
    category: str,
    content: str,
    actor,
    source_type: str = Memory.SourceType.AGENT,
    source_session_id: str = "",
    reason: str = "",
    at_ms: int | None = None,
) -> tuple[Memory, bool]:
    """Write a memory as upstream's `write` does; return (memory, created).

    Only writable (non-legacy) categories take writes. An exact duplicate (same project,
    category and normalised hash) is not refused: it only bumps that memory's `seen_count`
    and `last_seen_at`, whatever its status.
    """
    writable = category_names(project, writable_only=True)
    if category not in writable:
        raise ValidationError(
            {
                "category": (
                    f"{category!r} takes no new memories in {project.name}; "
                    f"write to one of: {', '.join(writable) or '(no pack installed)'}."
                )
            }
        )
    _validate_fields(
        project=project,
        fields={"category": category, "content": content, "source_type": source_type},
    )
    existing = (
        Memory.objects.select_for_update()
        .filter(project=project, category=category, normalized_hash=normalized_hash(content))
        .first()
    )
    if existing is None:
        memory = memory_create(
            project=project,
            category=category,
            content=content,
            actor=actor,
            source_type=source_type,
            source_session_id=source_session_id,
            reason=reason,
            at_ms=at_ms,
        )
        return memory, True
    now = at_ms if at_ms is not None else now_ms()
    seen_before = existing.seen_count
    with acting(actor=actor, reason=reason):
        existing.seen_count = seen_before + 1
        existing.last_seen_at = max(now, existing.last_seen_at)
        receipt = store_backend().write_memories(
            project=project, changes=[StoreChange(existing, "seen")]
        )
        existing.save(update_fields=["seen_count", "last_seen_at"])
        receipt.settle()
        audit_record(
            action="seen_again",
            target=existing,
            project=project,
            category=category,
            changes={"seen_count": [seen_before, existing.seen_count]},
        )
    return existing, False

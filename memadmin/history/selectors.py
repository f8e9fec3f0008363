"""Read the audit trail: events, and the versions django-simple-history keeps of each object."""

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from django.core.cache import cache
from django.db.models import Max, QuerySet
from django.utils import timezone

from memadmin.audit.models import AuditEvent
from memadmin.memories.models import Memory
from memadmin.taxonomy.models import Category


class UnknownVersion(LookupError):
    """No version has that id."""


class ForeignVersion(ValueError):
    """The version exists but belongs to another object."""


@dataclass(frozen=True)
class EventFilters:
    """What the audit log is narrowed to; empty fields do not narrow it."""

    actor: str = ""
    project: object = None
    category: str = ""
    action: str = ""
    since: date | None = None
    until: date | None = None
    memory: int | None = None  # a memory's id as pages show it (#12)


def event_list(filters: EventFilters = EventFilters()) -> QuerySet[AuditEvent]:
    """Return the events matching the filters, newest first; `until` includes its whole day."""
    events = AuditEvent.objects.select_related("project")
    if filters.actor:
        events = events.filter(actor_label=filters.actor)
    if filters.project is not None:
        events = events.filter(project=filters.project)
    if filters.category:
        events = events.filter(category=filters.category)
    if filters.action:
        events = events.filter(action=filters.action)
    if filters.since:
        events = events.filter(created_at__gte=_start_of(filters.since))
    if filters.until:
        events = events.filter(created_at__lt=_start_of(filters.until + timedelta(days=1)))
    if filters.memory is not None:
        events = events.filter(object_type="memory", object_id__in=_memory_pks(filters.memory))
    return events.order_by("-created_at", "-id")


def _memory_pks(display_id: int) -> list[str]:
    """Return the keys of the memories shown as #display_id (a synced one's upstream id, else
    memadmin's own), as the audit log names its objects."""
    shown = Memory.objects.filter(upstream_id=display_id) | Memory.objects.filter(
        pk=display_id, upstream_id__isnull=True
    )
    return [str(pk) for pk in shown.values_list("pk", flat=True)]


def _start_of(day: date) -> datetime:
    return timezone.make_aware(datetime.combine(day, time.min), timezone.get_current_timezone())


def event_actors() -> list[str]:
    """Return every actor that appears in the audit log, alphabetically."""
    return sorted(set(AuditEvent.objects.values_list("actor_label", flat=True).distinct()))


def event_actions() -> list[str]:
    """Return every kind of change that appears in the audit log, alphabetically."""
    return sorted(set(AuditEvent.objects.values_list("action", flat=True).distinct()))


def event_categories() -> list[str]:
    """Return every category named in the audit log, alphabetically."""
    names = AuditEvent.objects.exclude(category="").values_list("category", flat=True)
    return sorted(set(names.distinct()))


CHOICES_CACHE_KEY = "memadmin:audit-filter-choices"


def event_choices() -> dict[str, list[str]]:
    """Return the actors, categories and kinds of change the log holds (for its filters).

    Each is a scan of the whole log; they are kept in the cache with the newest event's
    id (an index lookup), so the log page reads them again only after a new event.
    """
    newest = AuditEvent.objects.aggregate(newest=Max("id"))["newest"]
    cached = cache.get(CHOICES_CACHE_KEY)
    if cached is not None and cached[0] == newest:
        return cached[1]
    choices = {
        "actor": event_actors(),
        "category": event_categories(),
        "action": event_actions(),
    }
    cache.set(CHOICES_CACHE_KEY, (newest, choices), timeout=None)
    return choices


# --- versions of a memory


def memory_versions(memory_pk: int) -> list:
    """Return every version of the memory, oldest first, each numbered from 1 as `number`."""
    rows = list(
        Memory.history.filter(id=memory_pk)
        .select_related("history_user")
        .order_by("history_date", "history_id")
    )
    for number, row in enumerate(rows, start=1):
        row.number = number
    return rows


def memory_version(memory_pk: int, version_id: int):
    """Return one version of the memory, numbered; UnknownVersion or ForeignVersion if not its."""
    row = Memory.history.filter(history_id=version_id).only("history_id", "id").first()
    if row is None:
        raise UnknownVersion(f"There is no version {version_id}.")
    if row.id != memory_pk:
        raise ForeignVersion(f"Version {version_id} is a version of another memory.")
    return next(v for v in memory_versions(memory_pk) if v.history_id == version_id)


# --- versions of a category's criteria


def criteria_versions(project_pk: int, name: str) -> list:
    """Return every version of a project's category, oldest first, numbered from 1.

    Versions are found by project and name, so a category that a pack upgrade removed
    keeps its history.
    """
    rows = list(
        Category.history.filter(project_id=project_pk, name=name)
        .select_related("history_user")
        .order_by("history_date", "history_id")
    )
    for number, row in enumerate(rows, start=1):
        row.number = number
    return rows


def criteria_revision(project_pk: int, name: str) -> int:
    """Return the revision of the project's category now (0 for one no longer in the pack)."""
    revisions = Category.objects.filter(project_id=project_pk, name=name)
    return revisions.values_list("revision", flat=True).first() or 0


def criteria_version(project_pk: int, name: str, version_id: int):
    """Return one version of the category; UnknownVersion or ForeignVersion if not its."""
    row = Category.history.filter(history_id=version_id).only("project_id", "name").first()
    if row is None:
        raise UnknownVersion(f"There is no version {version_id}.")
    if (row.project_id, row.name) != (project_pk, name):
        raise ForeignVersion(f"Version {version_id} is a version of another category.")
    return next(v for v in criteria_versions(project_pk, name) if v.history_id == version_id)


def effective_criteria_of(version) -> dict:
    """Return the criteria a category version had in force: its override, else its default."""
    if version.override_criteria is not None:
        return version.override_criteria
    return version.default_criteria

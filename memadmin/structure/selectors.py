"""Read what a project's structure could become: the long memories worth fragmenting."""

from dataclasses import dataclass

from django.db.models import Count, Q, QuerySet
from django.db.models.functions import Length
from django.db.models.lookups import GreaterThanOrEqual

from memadmin.core.fragments import LONG_MEMORY_CHARACTERS, propose_split
from memadmin.memories.models import Memory
from memadmin.memories.selectors import LIVE_STATUSES
from memadmin.projects.models import Project


@dataclass(frozen=True, slots=True)
class FragmentCandidate:
    """A live memory long and structured enough to fragment, with its size and its split."""

    memory: Memory
    characters: int
    tokens: int | None  # the heuristic count the header map sizes memories with
    fragments: int  # how many details the automatic split proposes


def structure_projects() -> QuerySet[Project]:
    """Return every project with its number of live memories of 280 characters or more."""
    long_and_live = Q(
        GreaterThanOrEqual(Length("memories__content"), LONG_MEMORY_CHARACTERS),
        memories__status__in=LIVE_STATUSES,
    )
    return Project.objects.annotate(long_count=Count("memories", filter=long_and_live)).order_by(
        "name"
    )


def fragment_candidates(project: Project) -> list[FragmentCandidate]:
    """Return the project's live memories worth fragmenting, longest first.

    A candidate has 280 characters or more and splits into two details or more
    (`memadmin.core.fragments.is_fragment_candidate`); ties go to the lower id.
    """
    long_memories = (
        Memory.objects.filter(project=project, status__in=LIVE_STATUSES)
        .annotate(characters=Length("content"))
        .filter(characters__gte=LONG_MEMORY_CHARACTERS)
        # Every split starts a fragment on a new line: a text of one line is never a candidate,
        # and the database leaves it out before any text is read into Python.
        .filter(content__contains="\n")
        .select_related("size")
        .order_by("-characters", "pk")
    )
    candidates = []
    for memory in long_memories:
        fragments = len(propose_split(memory.content))
        if fragments >= 2:
            size = getattr(memory, "size", None)
            candidates.append(
                FragmentCandidate(
                    memory=memory,
                    characters=memory.characters,
                    tokens=size.tokens if size is not None else None,
                    fragments=fragments,
                )
            )
    return candidates

"""Composite conflicts: a composite the read-back found changed in the store and in memadmin.

A conflict is a warning of the store's latest sync run (`composites.readback`), carrying both
sides as shown, the store's state in store ids (`store_state`, None when the store deleted the
row), its digest (`store_digest`) and the base memadmin had then (`base`). It stays open while
the composite's base is that one: resolving it (`composites.conflict_services`) moves the base,
and a later sync lists what is still in conflict then.

Each open conflict has a version (`conflict_version`) its resolution form carries: the base,
the store's side as the sync found it and memadmin's composite as the page showed it.
"""

import hashlib
import json

from memadmin.composites.models import Composite
from memadmin.composites.versions import composite_fingerprint
from memadmin.memories.models import Memory

from ..models import StoreComposite, SyncRun, UpstreamStore
from .publish import PublishRefused, memadmin_state, state_digest


def _shown(state: dict | None) -> str:
    """Return a composite's state in store ids, as a conflict lists each side."""
    if state is None:
        return "deleted"
    members = ", ".join(f"#{member}" for member in state["members"])
    return f"{state['type']} headed by #{state['head']}: [{members}], cursor {state['cursor']}"


def conflict_entry(problem: dict, link: StoreComposite, stored: dict | None) -> dict:
    """Return the read-back's warning for a conflict over ``link``'s composite.

    ``stored`` is the store's row as {type, head, cursor, members} in store ids, or None
    when the store deleted it.
    """
    composite = link.composite
    try:
        mine = _shown(memadmin_state(composite))
    except PublishRefused:
        mine = "has memories not in the store yet"
    return {
        **problem,
        "sides": {"store": _shown(stored), "memadmin": mine, "composite": composite.pk},
        "store_state": stored,
        "store_digest": "" if stored is None else state_digest(stored),
        "base": link.digest,
    }


def conflict_version(conflict: dict, composite: Composite) -> str:
    """Return the version of an open conflict: its base, the store's side, memadmin's now."""
    shown = [conflict["base"], conflict["store_digest"], composite_fingerprint(composite)]
    return hashlib.sha256(json.dumps(shown).encode()).hexdigest()[:32]


def composite_conflicts() -> list[dict]:
    """Return the open composite conflicts of each store's latest sync run.

    Each is the run's warning with the store's ``path``, and, when it can be resolved
    here, its ``version``; a conflict whose composite is gone, or whose base moved since
    (resolved, or synced again), is not listed.
    """
    found = []
    for upstream in UpstreamStore.objects.order_by("pk"):
        run = SyncRun.objects.filter(store=upstream).order_by("-started_at", "-pk").first()
        for warning in (run.warnings or []) if run else []:
            if warning.get("table") != "composites" or not warning.get("sides"):
                continue
            link = (
                StoreComposite.objects.select_related("composite")
                .filter(store=upstream, composite_id=warning["sides"]["composite"])
                .first()
            )
            if link is None:
                continue
            conflict = {**warning, "path": upstream.path, "store": upstream.pk}
            if "base" in warning:
                if warning["base"] != link.digest:
                    continue
                conflict["version"] = conflict_version(warning, link.composite)
                conflict["shown"] = _both_shown(upstream, warning["store_state"], link.composite)
            found.append(conflict)
    return found


def _both_shown(upstream: UpstreamStore, stored: dict | None, composite: Composite) -> dict:
    """Return each side as its page shows it: the type, the cursor, the head and members.

    The store's side names memories by their store id; each is the memory of this store's
    projects with that id when memadmin has it (its number and text shown), else the id.
    """
    members = [
        row.member for row in composite.members.select_related("member").order_by("position")
    ]
    mine = {"type": composite.type, "cursor": composite.cursor, "head": composite.head}
    mine["members"] = members
    if stored is None:
        return {"store": None, "memadmin": mine}
    ids = [stored["head"], *stored["members"]]
    known = {
        memory.upstream_id: memory
        for memory in Memory.objects.filter(
            project__upstream_link__store=upstream, upstream_id__in=ids
        )
    }
    theirs = {
        "type": stored["type"],
        "cursor": stored["cursor"],
        "head": known.get(stored["head"], stored["head"]),
        "members": [known.get(member, member) for member in stored["members"]],
    }
    return {"store": theirs, "memadmin": mine}


def open_conflict(composite: Composite) -> dict | None:
    """Return the open conflict over ``composite`` that can be resolved here, or None."""
    for conflict in composite_conflicts():
        if conflict["sides"]["composite"] == composite.pk and "version" in conflict:
            return conflict
    return None

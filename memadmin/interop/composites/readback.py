"""Read the store's composite tables back in a sync, whoever wrote them.

Run by `context_db_sync` after the memories are synced, for a store that has the two tables
(`composites_sync`). Each store composite is compared three ways with the base memadmin last
wrote or read (`StoreComposite.digest`): unchanged in the store, nothing to do; changed in
the store only (or new there, or gone there), memadmin takes it as an `import` version; changed
on both sides, nothing is overwritten and the conflict is reported. A row that cannot be taken
as it is (a head or member whose memory is archived or not in memadmin, a member equal to its
head or twice in it, duplicate positions, an unknown type, a cycle of headers) is reported with
the row, and then no composite of the store is imported: nothing is half-imported.

A member or head archived by a merge (``superseded_by``) is not a problem: it follows the
merge to its live result, in the store's rows and in memadmin's (`plugin_merges_repoint`,
recorded as `composite_repointed`, and written back to a published store).
"""

from collections import defaultdict
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q

from memadmin.audit.context import acting
from memadmin.audit.services import audit_record
from memadmin.composites.models import Composite, CompositeMember
from memadmin.composites.repoint_services import composites_repoint
from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError
from memadmin.core.contextdb import composites_ddl as ddl
from memadmin.core.contextdb.opening import open_readonly
from memadmin.memories.models import Memory

from ..models import StoreComposite, UpstreamStore
from ..write_through.store_writes import store_timeout
from .conflicts import conflict_entry
from .publish import PublishRefused, memadmin_state, state_digest
from .push import composites_push


def _problem(table: str, row, problem: str) -> dict:
    return {"table": table, "row": row, "column": "", "problem": problem}


def _live(memory: Memory, by_pk: dict) -> Memory:
    """Follow a merged memory to its live result (itself when it was not merged)."""
    seen = set()
    while memory.superseded_by_id is not None and memory.pk not in seen:
        seen.add(memory.pk)
        memory = by_pk.get(memory.superseded_by_id) or Memory.objects.get(
            pk=memory.superseded_by_id
        )
    return memory


class StoreReader:
    """One read-back: the store's rows checked and turned into memadmin states."""

    def __init__(self, upstream: UpstreamStore, rows, members):
        self.upstream = upstream
        self.rows = rows
        self.problems: list[dict] = []
        self.members = defaultdict(list)
        for member in members:
            self.members[member["composite_id"]].append(member)
        wanted = {row["head_memory_id"] for row in rows} | {m["member_memory_id"] for m in members}
        self.memories = {
            memory.upstream_id: memory
            for memory in Memory.objects.filter(
                project__upstream_link__store=upstream, upstream_id__in=wanted
            )
        }
        self.by_pk = {memory.pk: memory for memory in self.memories.values()}

    def memory(self, upstream_id, table: str, row, role: str) -> Memory | None:
        memory = self.memories.get(upstream_id)
        if memory is None or memory.upstream_gone_at is not None:
            self.problems.append(
                _problem(table, row, f"its {role} memory {upstream_id} is not in the store")
            )
            return None
        memory = _live(memory, self.by_pk)
        if memory.status == Memory.Status.ARCHIVED:
            self.problems.append(
                _problem(table, row, f"its {role} memory {upstream_id} is archived")
            )
            return None
        return memory

    def state(self, row: dict) -> dict | None:
        """Return the row as memadmin memories {type, head, cursor, members}, or None (reported)."""
        problems = len(self.problems)
        cid = row["id"]
        if row["type"] not in Composite.Type.values:
            self.problems.append(_problem("composites", cid, f"unknown type {row['type']!r}"))
        head = self.memory(row["head_memory_id"], "composites", cid, "head")
        positions: set[int] = set()
        members: list[Memory] = []
        for member in self.members.get(cid, []):
            label = f"{cid}/{member['member_memory_id']}"
            if member["position"] in positions:
                self.problems.append(
                    _problem(
                        "composite_members", label, f"position {member['position']} is taken twice"
                    )
                )
            positions.add(member["position"])
            memory = self.memory(member["member_memory_id"], "composite_members", label, "member")
            if memory is None or head is None:
                continue
            if memory.pk == head.pk:
                self.problems.append(
                    _problem("composite_members", label, "the member is its composite's head")
                )
            elif memory.pk in {m.pk for m in members}:
                self.problems.append(
                    _problem("composite_members", label, "the memory is a member twice")
                )
            elif memory.project_id != head.project_id:
                self.problems.append(
                    _problem("composite_members", label, "the member is of another project")
                )
            members.append(memory)
        if len(self.problems) > problems:
            return None
        return {"type": row["type"], "head": head, "cursor": row["cursor"], "members": members}

    def refuse_cycles(self, states: dict[int, dict], kept: list[tuple[int, int]]) -> None:
        """Report the composites whose headers head each other round a cycle.

        ``kept`` are the (head, member) pairs of memadmin's composites the read-back leaves.
        """
        edges = defaultdict(set)
        for head, member in kept:
            edges[head].add(member)
        for state in states.values():
            edges[state["head"].pk] |= {member.pk for member in state["members"]}
        for cid, state in states.items():
            start = state["head"].pk
            stack, seen = list(edges[start]), set()
            while stack:
                node = stack.pop()
                if node == start:
                    self.problems.append(
                        _problem(
                            "composites",
                            cid,
                            f"a cycle of headers: memory {state['head'].display_id} heads a "
                            "composite that leads back to it",
                        )
                    )
                    break
                if node not in seen:
                    seen.add(node)
                    stack.extend(edges[node])


def _memadmin_digest(composite: Composite) -> str | None:
    """Return the digest of memadmin's state of the composite (None: not all in the store)."""
    try:
        return state_digest(memadmin_state(composite))
    except PublishRefused:
        return None


def _locked(pk: int) -> Composite | None:
    """Return the composite re-read under its row lock (None: deleted since)."""
    return (
        Composite.objects.select_for_update(of=("self",))
        .select_related("head", "project")
        .filter(pk=pk)
        .first()
    )


def _both_changed(link: StoreComposite, row: dict, reader: StoreReader) -> dict:
    """Return the conflict of a composite changed in the store and in memadmin since the base."""
    conflict = _problem(
        "composites",
        row["id"],
        f"changed in the store and in memadmin (composite {link.composite_id}) since "
        "the last sync; neither was overwritten",
    )
    stored = {
        "type": row["type"],
        "head": row["head_memory_id"],
        "cursor": row["cursor"],
        "members": [m["member_memory_id"] for m in reader.members.get(row["id"], [])],
    }
    return conflict_entry(conflict, link, stored)


def _raw_digest(row: dict, members: list[dict]) -> str:
    return state_digest(
        {
            "type": row["type"],
            "head": row["head_memory_id"],
            "cursor": row["cursor"],
            "members": [m["member_memory_id"] for m in members],
        }
    )


def store_state_apply(composite: Composite | None, state: dict, row: dict) -> Composite:
    """Write the store's state into memadmin (as the enclosing `acting` block's actor)."""
    members = state["members"]
    cursor = min(max(int(state["cursor"] or 0), 0), max(len(members) - 1, 0))
    before = None
    if composite is None:
        composite = Composite(
            project_id=state["head"].project_id, made_at=row["created_at"] or now_ms()
        )
    else:
        before = {
            "type": composite.type,
            "head": composite.head_id,
            "members": list(composite.members.values_list("member_id", flat=True)),
            "cursor": composite.cursor,
        }
        composite.members.all().delete()
        composite.members_changed_at = max(now_ms(), composite.members_changed_at or 0)
    composite.type, composite.head, composite.cursor = state["type"], state["head"], cursor
    composite.save()
    for index, memory in enumerate(members):
        CompositeMember.objects.create(composite=composite, member=memory, position=index)
    after = {
        "type": composite.type,
        "head": composite.head_id,
        "members": [memory.pk for memory in members],
        "cursor": cursor,
    }
    audit_record(
        action="composite_imported",
        target=composite,
        project=composite.project,
        category=composite.head.category,
        changes={"store_id": row["id"], "before": before, "after": after},
    )
    return composite


def composites_sync(*, upstream: UpstreamStore | None, path: Path) -> list[dict]:
    """Read the store's composite tables back into memadmin; return the problems found.

    Run inside the sync's `acting` block (actor "import"). Nothing is imported when any
    problem is found; conflicts (changed on both sides) are reported and left as they are.
    """
    if upstream is None:
        return []
    try:
        connection = open_readonly(Path(path), timeout=store_timeout())
        try:
            if ddl.shape_difference(connection) or set(ddl.tables_present(connection)) != set(
                ddl.TABLES
            ):
                # No tables (or not these): nothing to read, and nothing taken as deleted.
                return []
            rows, members = ddl.rows_read(connection)
        finally:
            connection.close()
    except StoreError as error:
        return [_problem("composites", None, f"the composite tables cannot be read: {error}")]
    reader = StoreReader(upstream, rows, members)
    links = {link.upstream_id: link for link in StoreComposite.objects.filter(store=upstream)}
    changed: dict[int, tuple[dict, dict]] = {}
    conflicts: list[dict] = []
    for row in rows:
        link = links.get(row["id"])
        raw = _raw_digest(row, reader.members.get(row["id"], []))
        if link is not None and link.digest == raw:
            continue
        if link is not None and _memadmin_digest(link.composite) == raw:
            # Both sides moved alike (a memory deleted, its member rows cascading on both).
            link.digest, link.read_at = raw, now_ms()
            link.save(update_fields=["digest", "read_at"])
            continue
        state = reader.state(row)
        if state is None:
            continue
        if link is not None and _memadmin_digest(link.composite) != link.digest:
            conflicts.append(_both_changed(link, row, reader))
            continue
        changed[row["id"]] = (state, row)
    replaced = [links[uid].composite_id for uid in changed if uid in links]
    kept = (
        CompositeMember.objects.filter(composite__project__upstream_link__store=upstream)
        .exclude(composite_id__in=replaced)
        .values_list("composite__head_id", "member_id")
    )
    reader.refuse_cycles({cid: state for cid, (state, _) in changed.items()}, list(kept))
    gone = [link for uid, link in links.items() if uid not in {row["id"] for row in rows}]
    if reader.problems:
        return reader.problems + conflicts
    now = now_ms()
    with transaction.atomic():
        for uid, (state, row) in changed.items():
            link = links.get(uid)
            composite = None
            if link is not None:
                # Compared again under the row lock every composite service takes: a person's
                # change made since the comparison above is kept, never written over.
                composite = _locked(link.composite_id)
                if composite is None:
                    continue  # deleted here meanwhile: the next sync compares again
                if _memadmin_digest(composite) != link.digest:
                    conflicts.append(_both_changed(link, row, reader))
                    continue
            composite = store_state_apply(composite, state, row)
            StoreComposite.objects.update_or_create(
                composite=composite,
                defaults={
                    "store": upstream,
                    "upstream_id": uid,
                    "digest": _raw_digest(row, reader.members.get(uid, [])),
                    "read_at": now,
                },
            )
        for link in gone:
            composite = _locked(link.composite_id)
            if composite is None:
                continue
            if _memadmin_digest(composite) != link.digest:
                conflict = _problem(
                    "composites",
                    link.upstream_id,
                    f"deleted in the store and changed in memadmin (composite "
                    f"{composite.pk}); memadmin's was kept",
                )
                conflicts.append(conflict_entry(conflict, link, None))
                continue
            store_deletion_apply(composite, link.upstream_id)
    return conflicts


def store_deletion_apply(composite, upstream_id: int) -> None:
    """Delete a composite the store deleted, with its members, recording that the store did."""
    audit_record(
        action="composite_deleted",
        target=composite,
        project=composite.project,
        changes={"store_id": upstream_id, "deleted_in_store": True},
    )
    composite.members.all().delete()
    composite.delete()


def plugin_merges_repoint(*, upstream: UpstreamStore | None) -> tuple[int, list[dict]]:
    """Repoint memadmin's composites from memories the plugin merged to their results.

    A head or member archived with ``superseded_by`` follows it (to the live end of the chain);
    each composite touched is recorded by `composites_repoint` and, for a published store,
    written back. Return how many composites were repointed, and the refusals met.
    """
    if upstream is None:
        return 0, []
    merged = (
        Memory.objects.filter(
            project__upstream_link__store=upstream,
            status=Memory.Status.ARCHIVED,
            superseded_by__isnull=False,
        )
        .filter(Q(memberships__isnull=False) | Q(headed_composites__isnull=False))
        .distinct()
    )
    by_result = defaultdict(set)
    for memory in merged:
        result = _live(memory, {})
        if result.status != Memory.Status.ARCHIVED:
            by_result[result.pk].add(memory.pk)
    touched, problems = 0, []
    with acting(actor="import", reason="the plugin merged memories of these composites"):
        for result_pk, sources in sorted(by_result.items()):
            try:
                with transaction.atomic():
                    touched += len(composites_repoint(source_ids=sources, result_id=result_pk))
            except ValidationError as error:
                problems.append(
                    _problem(
                        "composites",
                        None,
                        f"repointing to merge result {result_pk}: {' '.join(error.messages)}",
                    )
                )
    return touched, problems


def composites_after_sync(run, path: Path, *, push: bool = True):
    """Read the composite tables back, push what memadmin kept, follow the plugin's merges.

    ``run`` is the sync's SyncRun (None when an incremental sync found no memory changed);
    without ``push`` (a pull-only sync) nothing is written to the store. Note the problems
    and repointings on the run; return ``run``.
    """
    upstream = run.store if run is not None else None
    if upstream is None:
        upstream = UpstreamStore.objects.filter(path=str(Path(path).resolve())).first()
    problems = composites_sync(upstream=upstream, path=path)
    if push:
        pushed, refusals = composites_push(upstream=upstream, path=path)
        problems += refusals
        if pushed:
            problems.append(_problem("composites", None, f"{pushed} composite(s) pushed"))
    repointed, refusals = plugin_merges_repoint(upstream=upstream)
    problems += refusals
    if run is not None and (problems or repointed):
        if repointed:
            problems.append(
                _problem("composites", None, f"{repointed} composite(s) repointed to merge results")
            )
        run.warnings = list(run.warnings or []) + problems
        run.save(update_fields=["warnings"])
    return run

"""Push, in a sync, the composite changes memadmin holds that the published store has not had.

With ``MEMADMIN_STORE_WRITES=pending`` (a team server without the file) composite edits are
kept in memadmin; deleting a published composite is refused there, as a merge is, since a
deletion could not be told from a row memadmin never had. The next sync on the machine with
the file pushes them, three ways as the read-back compares: a composite memadmin changed since
its base, whose store row did not change, is written; one the store lacks is inserted; one
changed on both sides is left to the read-back's conflict report.
"""

from pathlib import Path

from memadmin.composites.models import Composite
from memadmin.core.clock import now_ms
from memadmin.core.contextdb import StoreError

from ..models import StoreComposite, UpstreamStore
from .publish import (
    PublishRefused,
    link_save,
    memadmin_state,
    published,
    refused_error,
    state_digest,
    store_state,
    write_state,
    write_transaction,
)


def composites_push(*, upstream: UpstreamStore | None, path: Path) -> tuple[int, list[dict]]:
    """Write memadmin's changed composites to a published store; return (pushed, problems)."""
    if not published(upstream):
        return 0, []
    links = {link.composite_id: link for link in StoreComposite.objects.filter(store=upstream)}
    problems: list[dict] = []
    todo = []
    for composite in Composite.objects.filter(project__upstream_link__store=upstream).order_by(
        "pk"
    ):
        try:
            state = memadmin_state(composite)
        except PublishRefused as refused:
            problems.append(_problem(composite, " ".join(refused.messages)))
            continue
        link = links.get(composite.pk)
        if link is None or link.digest != state_digest(state):
            todo.append((composite, link, state))
    if not todo:
        return 0, problems
    now = now_ms()
    written = []
    try:
        with write_transaction(upstream, now) as tx:
            for composite, link, state in todo:
                upstream_id = None if link is None else link.upstream_id
                if link is not None:
                    current = store_state(tx.connection, link.upstream_id)
                    if current is None or state_digest(current) != link.digest:
                        continue  # changed in the store too: the read-back reports it
                written.append(
                    (composite, write_state(tx.connection, upstream_id, state, now), state)
                )
    except StoreError as error:
        refusal = " ".join(refused_error(upstream, error).messages)
        return 0, [*problems, _problem(None, refusal)]
    for composite, upstream_id, state in written:
        link_save(composite, upstream, upstream_id, state_digest(state), now)
    return len(written), problems


def _problem(composite: Composite | None, text: str) -> dict:
    row = None if composite is None else f"memadmin composite {composite.pk}"
    return {"table": "composites", "row": row, "column": "", "problem": f"not pushed: {text}"}

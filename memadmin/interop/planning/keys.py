"""The unique key check of a sync plan, compact enough for a whole store.

Two memories of a project cannot share (category, normalized_hash), upstream's UNIQUE
(project_path, category, normalized_hash) as memadmin holds it. A plan checks every row of
the store in scope against every other and against memadmin's rows that stay as they are.
Held per store row: a 16-byte digest of its key and its id (24 bytes), not the key's
texts; the clashes are found at the end with one sort. Two keys with one digest would take
a 128-bit BLAKE2b collision.
"""

from array import array
from hashlib import blake2b

import numpy as np

from memadmin.core.contextdb import RowProblem


def key_digest(key: tuple) -> bytes:
    """Return the 16-byte digest of a (project, category, normalized_hash) key."""
    return blake2b(repr(key).encode("utf-8", "surrogatepass"), digest_size=16).digest()


class UniqueKeys:
    """The keys of the store's rows in scope, in the order the plan reads them."""

    def __init__(self):
        self.digests = bytearray()
        self.ids = array("q")

    def add(self, upstream_id: int, key: tuple) -> None:
        """Note a store row's key."""
        self.digests += key_digest(key)
        self.ids.append(upstream_id)

    def clashes(self, owners: dict[tuple, int]) -> list[RowProblem]:
        """Return a problem for each store row whose key another row holds already.

        ``owners`` maps the keys of memadmin's rows that stay as they are to their primary
        keys: those hold their keys first; then each key belongs to the first store row
        holding it, in the order the rows were added.
        """
        if not self.ids:
            return []
        digests = np.frombuffer(self.digests, dtype="V16")
        distinct, first, inverse = np.unique(digests, return_index=True, return_inverse=True)
        held = np.zeros(len(distinct), dtype=np.int64)  # a memadmin row's pk, else 0
        categories = {}
        for key, pk in owners.items():
            digest = np.frombuffer(key_digest(key), dtype="V16")[0]
            at = int(np.searchsorted(distinct, digest))
            if at < len(distinct) and distinct[at] == digest:
                held[at] = pk
                categories[at] = key[1]
        owner = first[inverse]
        clashing = np.flatnonzero((owner != np.arange(len(digests))) | (held[inverse] != 0))
        problems = []
        for position in clashing.tolist():
            group = int(inverse[position])
            if held[group]:
                text = (
                    f"is identical to memadmin memory #{int(held[group])} in "
                    f"{categories[group]}, which is not this row's memory; edit or delete one "
                    "of the two, then sync again"
                )
            else:
                text = (
                    f"has the same category and normalized_hash as row {self.ids[owner[position]]}"
                )
            problems.append(RowProblem("memories", self.ids[position], "normalized_hash", text))
        return problems

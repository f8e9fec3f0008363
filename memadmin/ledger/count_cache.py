"""Token counts kept in the database, so a preview counts each text once, ever.

`counts_for(counter, texts)` reads every count a ledger needs in one query and hands back
a `CachedCounter` over them; counts it has to make are written in bulk by `save()`.
`ledger_texts(...)` names the texts an assembly will count, so the read can happen before
the assembly starts rather than text by text during it. A process also remembers the
counts it has read or made, by text, so a page shown again reads none.
"""

import json
from collections.abc import Iterable, Iterator, MutableMapping

from django.db import connection
from django.db.models.expressions import RawSQL

from memadmin.core.hashing import content_digest
from memadmin.core.ledger import LedgerComposite, LedgerMemory
from memadmin.core.ledger.graph import CompositeIndex
from memadmin.core.ledger.headers import details_suffix
from memadmin.core.ledger.ordering import ineligible_reason
from memadmin.core.ledger.render import WRAPPER_TEXT, category_tags_text, memory_lines
from memadmin.core.tokens import CachedCounter, TokenCounter

from .models import TokenCount

WRITE_BATCH = 2000


class StoredCounts(MutableMapping):
    """A mapping of `<counter>:<digest>` keys to counts, loaded from and saved to TokenCount.

    It answers only from what `load` read; a key set later is remembered and written by
    `save`. Keys of another counter are refused: one mapping serves one counter.
    """

    def __init__(self, counter_name: str):
        """Start empty for the counter called `counter_name`."""
        self.counter_name = counter_name
        self._prefix = f"{counter_name}:"
        self._counts: dict[str, int] = {}
        self._unsaved: dict[str, int] = {}

    def load(self, digests: Iterable[str]) -> int:
        """Read the stored counts of these digests in one query; return how many were found."""
        wanted = sorted(set(digests))
        if not wanted:
            return 0
        rows = TokenCount.objects.filter(
            counter=self.counter_name, digest__in=_json_array(wanted)
        ).values_list("digest", "count")
        found = 0
        for digest, count in rows:
            self._counts[self._prefix + digest] = count
            found += 1
        return found

    def save(self) -> int:
        """Write the counts made since loading, skipping any another request wrote first.

        Return how many were new here.
        """
        if not self._unsaved:
            return 0
        rows = [
            TokenCount(counter=self.counter_name, digest=key[len(self._prefix) :], count=count)
            for key, count in self._unsaved.items()
        ]
        TokenCount.objects.bulk_create(rows, batch_size=WRITE_BATCH, ignore_conflicts=True)
        self._unsaved.clear()
        return len(rows)

    @property
    def unsaved(self) -> int:
        """Return how many counts wait to be saved (the misses since the last save)."""
        return len(self._unsaved)

    def _check(self, key: str) -> None:
        if not key.startswith(self._prefix):
            raise KeyError(f"{key!r} is not a key of the {self.counter_name} counter")

    def __getitem__(self, key: str) -> int:
        return self._counts[key]

    def __setitem__(self, key: str, count: int) -> None:
        self._check(key)
        self._counts[key] = count
        self._unsaved[key] = count

    def __delitem__(self, key: str) -> None:
        del self._counts[key]
        self._unsaved.pop(key, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._counts)

    def __len__(self) -> int:
        return len(self._counts)


def _json_array(values: list[str]) -> RawSQL:
    """Return a subquery over the values, passed as one JSON parameter whatever their number.

    A list of parameters would hit the engines' limits on a large store (PostgreSQL takes
    at most 65,535); one JSON text keeps the read to a single query on both engines.
    """
    payload = json.dumps(values)
    if connection.vendor == "postgresql":
        return RawSQL("SELECT jsonb_array_elements_text(%s::jsonb)", [payload])
    return RawSQL("SELECT value FROM json_each(%s)", [payload])


def digests_of(texts: Iterable[str]) -> dict[str, str]:
    """Return the content digest of each text that has one (a lone surrogate has none)."""
    digests = {}
    for text in texts:
        try:
            digests[text] = content_digest(text)
        except UnicodeEncodeError:
            continue
    return digests


class PreloadedCounter(CachedCounter):
    """A CachedCounter that first looks a text up by the text itself, so none is hashed twice.

    `by_text` is this process's memory of counts (see `remembered`): an assembly asks for
    the same lines in both modes, and a server process for the same lines on every view.
    """

    def __init__(self, counter: TokenCounter, cache: StoredCounts, by_text: dict[str, int]):
        """Wrap `counter` over `cache`, knowing the counts in `by_text` already."""
        super().__init__(counter, cache)
        self.by_text = by_text

    def count(self, text: str) -> int:
        """Return the count of `text`: known by text, else cached by digest, else counted."""
        count = self.by_text.get(text)
        if count is None:
            count = self.by_text[text] = super().count(text)
        return count


REMEMBERED_LIMIT = 300_000  # texts per counter kept in a process: some 100 MB at worst
_remembered: dict[str, dict[str, int]] = {}


def remembered(counter_name: str) -> dict[str, int]:
    """Return this process's counts by text for the counter, emptied when it grows too big.

    A count never changes for a given counter and text, so what a process once read or
    counted stays true; only its size is bounded.
    """
    counts = _remembered.setdefault(counter_name, {})
    if len(counts) > REMEMBERED_LIMIT:
        counts.clear()
    return counts


def forget_counts() -> None:
    """Empty this process's memory of counts (the database keeps them)."""
    _remembered.clear()


def counts_for(counter: TokenCounter, texts: Iterable[str]) -> tuple[CachedCounter, StoredCounts]:
    """Return a counter that knows the counts of these texts, and its store.

    Counts this process already knows cost nothing; the others are read from the database
    in one query (none when every count is known). Call `store.save()` after counting to
    keep what was counted anew.
    """
    store = StoredCounts(counter.name)
    by_text = remembered(counter.name)
    digests = digests_of(text for text in texts if text not in by_text)
    if digests:
        store.load(digests.values())
        prefix = f"{counter.name}:"
        for text, digest in digests.items():
            count = store.get(prefix + digest)
            if count is not None:
                by_text[text] = count
    return PreloadedCounter(counter, store, by_text), store


def ledger_texts(
    memories: list[LedgerMemory], composites: Iterable[LedgerComposite], *, now_ms: int
) -> set[str]:
    """Return every text an assembly of these memories counts, in either mode.

    That is the wrapper, the tags of each category, each memory's line as plugin mode
    renders it and, for a header with eligible details, its line as headers mode renders it.
    """
    texts = {WRAPPER_TEXT}
    texts.update(category_tags_text(category) for category in {m.category for m in memories})
    texts.update(line + "\n" for line in memory_lines(memories, {}))
    eligible = {memory.id for memory in memories if ineligible_reason(memory, now_ms) is None}
    index = CompositeIndex(composites, {memory.id for memory in memories})
    suffixes = {
        head: details_suffix(ids) for head, ids in index.eligible_details(eligible).items() if ids
    }
    headers = [memory for memory in memories if memory.id in suffixes]
    texts.update(line + "\n" for line in memory_lines(headers, suffixes))
    return texts

"""A sync runs with a 64 MB SQLite page cache on memadmin's connection, and gives it back.

With SQLite's default 2 MB cache, the 450,000-row first sync peaked at 529 MB instead of
277 MB (`manage.py bench_sync --rows 450000`); the web pages keep the small cache.
"""

import pytest
from django.db import connection

from memadmin.interop.writing.page_cache import SYNC_CACHE_KIB, sync_page_cache
from memadmin.interop.writing.services import context_db_sync

pytestmark = pytest.mark.django_db


def cache_size() -> int:
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA cache_size")
        return cursor.fetchone()[0]


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's page cache")
def test_a_sync_runs_with_the_large_cache_and_gives_it_back(store):
    """Read inside the sync (its progress reports), the cache is 64 MB; after, as before."""
    before = cache_size()
    assert before != -SYNC_CACHE_KIB  # the web processes' default, not the sync's
    during = []
    context_db_sync(path=store(), progress=lambda *step: during.append(cache_size()))
    assert during and set(during) == {-SYNC_CACHE_KIB}
    assert cache_size() == before


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's page cache")
def test_the_cache_is_given_back_when_the_block_fails():
    before = cache_size()
    with pytest.raises(RuntimeError), sync_page_cache():
        assert cache_size() == -SYNC_CACHE_KIB
        raise RuntimeError("a sync that stops on an error")
    assert cache_size() == before


def test_on_postgresql_nothing_is_asked_of_the_connection():
    """The block only runs its body where the engine is not SQLite (no PRAGMA is sent)."""
    ran = []
    with sync_page_cache():
        ran.append(True)
    assert ran == [True]

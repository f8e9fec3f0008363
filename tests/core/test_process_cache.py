"""The process cache: values kept by key while their version stands, bounded, thread-safe."""

import threading

from memadmin.core.process_cache import Kept, ProcessCache, reset_process_caches


def made(log: list, value):
    """Return a maker that logs what it was handed and makes `value`."""

    def make(kept):
        log.append(kept)
        return value

    return make


def test_a_value_is_made_once_while_its_version_stands():
    """The same key at the same version is made once; another version makes it again,
    handed what was kept."""
    cache, log = ProcessCache("test"), []
    assert cache.get("k", 1, made(log, "one")) == "one"
    assert cache.get("k", 1, made(log, "again")) == "one"
    assert cache.get("k", 2, made(log, "two")) == "two"
    assert log == [None, Kept(1, "one")]


def test_still_refuses_a_kept_value_at_the_same_version():
    """A value its `still` test refuses is made again, from what was kept."""
    cache, log = ProcessCache("test"), []
    cache.get("k", None, made(log, 5))
    assert cache.get("k", None, made(log, 6), still=lambda value: value < 5) == 6
    assert cache.get("k", None, made(log, 7), still=lambda value: value < 7) == 6
    assert log == [None, Kept(None, 5)]


def test_the_least_recently_used_goes_first():
    """Past its limit a cache drops the value used longest ago; a hit counts as a use."""
    cache = ProcessCache("test", limit=2)
    cache.get("a", 0, lambda kept: 1)
    cache.get("b", 0, lambda kept: 2)
    cache.get("a", 0, lambda kept: 0)  # a hit: "b" is now the oldest
    cache.get("c", 0, lambda kept: 3)
    assert cache.peek("a") == Kept(0, 1)
    assert cache.peek("b") is None
    assert cache.peek("c") == Kept(0, 3)


def test_a_weighed_limit_always_keeps_the_newest():
    """By weight, values go oldest first while over the limit, but never the last one."""
    cache = ProcessCache("test", limit=10, weight=len)
    cache.get("a", 0, lambda kept: "x" * 4)
    cache.get("b", 0, lambda kept: "x" * 5)
    assert len(cache) == 2
    cache.get("c", 0, lambda kept: "x" * 6)
    assert [cache.peek(key) is not None for key in "abc"] == [False, False, True]
    cache.get("d", 0, lambda kept: "x" * 50)
    assert [cache.peek(key) is not None for key in "abcd"] == [False, False, False, True]


def test_put_update_pop_and_clear():
    """A value can be kept, changed at its version, and dropped."""
    cache = ProcessCache("test")
    cache.put("k", 3, {"a"})
    cache.update("k", lambda value: value | {"b"})
    cache.update("missing", lambda value: value | {"b"})
    assert cache.peek("k") == Kept(3, {"a", "b"})
    assert cache.peek("missing") is None
    cache.pop("k")
    cache.pop("k")
    assert cache.peek("k") is None
    cache.put("k", 3, set())
    cache.clear()
    assert len(cache) == 0


def test_reset_empties_every_cache_of_the_process():
    """One reset empties each cache, whoever made it."""
    first, second = ProcessCache("first"), ProcessCache("second")
    first.put("k", 0, 1)
    second.put("k", 0, 2)
    reset_process_caches()
    assert first.peek("k") is None and second.peek("k") is None


def test_two_threads_never_make_the_same_value_twice():
    """Threads asking at once for the same value wait for the one making it."""
    cache = ProcessCache("test")
    started, release, makes = threading.Event(), threading.Event(), []

    def make(kept):
        makes.append(kept)
        started.set()
        release.wait(5)
        return "made"

    results = []
    threads = [
        threading.Thread(target=lambda: results.append(cache.get("k", 1, make))) for _ in range(4)
    ]
    threads[0].start()
    started.wait(5)
    for thread in threads[1:]:
        thread.start()
    release.set()
    for thread in threads:
        thread.join(5)
    assert results == ["made"] * 4
    assert makes == [None]

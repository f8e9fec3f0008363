"""Run a call with the interpreter's frames in one chunk of memory, mapped once.

CPython keeps the frames of Python calls in chunks of 16 KiB. Until the fix of
python/cpython#142183 (in later 3.13 and 3.14 releases; these machines have 3.12.1 and
3.13.0), a chunk is unmapped as soon as the call that needed it returns. A loop whose calls cross a chunk's end then maps and unmaps a
chunk on every call. Django's middleware and template rendering cross it often: the parameter
walk (tests/test_parameter_fuzz.py) made 800,000 mmap and munmap calls, and a sixth of its CPU
went to them.

`in_one_chunk` makes the call from a frame of half a mebibyte. The interpreter maps a chunk of
one mebibyte for that frame, and the calls below it fit in the rest of that chunk. The test
command's processes run every test this way (tests/conftest.py), so each test maps one chunk.
"""

from collections.abc import Callable

# Slots of 8 bytes: the frame takes 528 KB, so its chunk is 1 MiB (a power of two) and leaves
# some 500 KB to the calls below it, far more than a request through Django needs.
EXTRA_SLOTS = 66_000


def in_one_chunk[T](call: Callable[[], T]) -> T:
    """Return `call()`, made from a frame large enough to give the calls below it one chunk."""
    return call()


# The extra slots are local variables the function never uses: only its frame's size changes.
_code = in_one_chunk.__code__
_names = _code.co_varnames + tuple(f"_unused_{n}" for n in range(EXTRA_SLOTS))
in_one_chunk.__code__ = _code.replace(co_varnames=_names, co_nlocals=len(_names))

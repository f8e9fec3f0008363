"""Give the system back the pages a process freed, after a large piece of work let them go.

CPython hands strings over 512 bytes to the C allocator. glibc's `free` returns memory to the
system only from the top of its heap, so after a read of 100,000 memory rows and the lines
rendered from them are let go, their pages stay resident until the same process allocates
that much again. `malloc_trim(0)` gives back every whole free page (well under a millisecond
when little is free). Where the C library has no such call (musl, macOS), nothing is done.
"""

import ctypes
import ctypes.util


def _malloc_trim():
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):
        return None


_trim = _malloc_trim()


def give_back_free_memory() -> None:
    """Return the C heap's whole free pages to the system, where glibc allows it."""
    if _trim is not None:
        _trim(0)

"""The processes of `memadmin serve`: one instance per folder, children that stop with it.

`memadmin serve` runs the web server and the background worker as children. Each child gets
a process group of its own, so that a stop reaches every process it started (a server's own
children included), and asks the kernel for SIGTERM should `serve` die without stopping it
(SIGKILL, a crash): nothing keeps answering on the port or writing the store once `serve` is
gone. SIGTERM, SIGINT and SIGHUP to `serve` stop both children: SIGTERM first, which the
worker takes as "finish or roll back the write you are in" (`run_worker`), then SIGKILL
for whatever is still running after STOP_SECONDS.

One `serve` at a time per instance folder (the var dir): `instance_lock` holds an exclusive
`flock` on ``<var dir>/serve.lock``, and the children inherit it, so a second `serve` is
refused until the first one and every process it started are gone. The kernel releases the
lock when they end, however they end.
"""

import contextlib
import ctypes
import errno
import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

LOCK_NAME = "serve.lock"
STOP_SECONDS = 8.0
POLL_SECONDS = 0.1
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
_PR_SET_PDEATHSIG = 1
WORKER_NICENESS = 10


class InstanceBusy(Exception):
    """Another `memadmin serve` holds the instance folder."""


def instance_lock(var_dir: Path) -> int:
    """Take the instance folder's lock and return its descriptor; raise InstanceBusy.

    The descriptor stays open for the life of the process (and of the children it is passed
    to): closing it, or the end of all of them, releases the lock.
    """
    var_dir.mkdir(parents=True, exist_ok=True)
    path = var_dir / LOCK_NAME
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        holder = os.pread(descriptor, 32, 0).decode(errors="replace").strip()
        os.close(descriptor)
        if error.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
            raise
        raise InstanceBusy(
            f"another memadmin serve is already running on {var_dir}"
            + (f" (process {holder})" if holder else "")
            + "; stop it first (its Ctrl+C, or kill PID), or serve another store"
        ) from None
    os.ftruncate(descriptor, 0)
    os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
    return descriptor


def _die_with(parent: int) -> None:
    """In a child, before exec: ask for SIGTERM when ``parent`` dies (Linux)."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        return  # not Linux: a dead serve's children are not stopped by the kernel
    if os.getppid() != parent:  # the parent died before the request was made
        os.kill(os.getpid(), signal.SIGTERM)


class _StopAsked:
    """A signal handler that remembers the first stop signal received."""

    def __init__(self):
        self.signal: int | None = None

    def __call__(self, signum, frame) -> None:
        if self.signal is None:
            self.signal = signum


def _start(
    argv: Sequence[str], cwd: Path, hold: Sequence[int], *, niceness: int = 0
) -> subprocess.Popen:
    parent = os.getpid()

    def before_exec() -> None:  # serve runs no thread
        _die_with(parent)
        if niceness:
            os.nice(niceness)

    return subprocess.Popen(
        argv, cwd=cwd, start_new_session=True, pass_fds=tuple(hold), preexec_fn=before_exec
    )


def _stop(children: list[subprocess.Popen]) -> None:
    """SIGTERM each child's process group, wait up to STOP_SECONDS, then SIGKILL the rest."""
    for child in children:
        _signal_group(child, signal.SIGTERM)
    deadline = time.monotonic() + STOP_SECONDS
    for child in children:
        with contextlib.suppress(subprocess.TimeoutExpired):
            child.wait(timeout=max(0.0, deadline - time.monotonic()))
    for child in children:
        _signal_group(child, signal.SIGKILL)  # its group: a child's own children too
        child.wait()


def _signal_group(child: subprocess.Popen, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # the whole group has ended
        os.killpg(child.pid, signum)


class GatedServer:
    """The web server started before `serve` has prepared the database, waiting to be let in.

    It runs `memadmin.serve_web` on ``address``, the read end of a pipe its gate; `open` lets
    it listen, `close` (or the end of `serve`) makes it end without listening.
    """

    def __init__(self, address: str, *, cwd: Path, hold: Sequence[int] = ()):
        gate, gate_end = os.pipe()
        self._gate: int | None = gate_end
        try:
            argv = [sys.executable, "-m", "memadmin.serve_web", str(gate), address]
            self.process = _start(argv, cwd, [*hold, gate])
        finally:
            os.close(gate)

    def open(self) -> subprocess.Popen:
        """Let the server listen; return its process."""
        os.write(self._gate, b"o")
        self._close_gate()
        return self.process

    def close(self) -> None:
        """Stop the server, let in or not."""
        self._close_gate()
        _stop([self.process])

    def _close_gate(self) -> None:
        if self._gate is not None:
            os.close(self._gate)
            self._gate = None


def run_beside(
    worker: Sequence[str],
    server: Sequence[str] | subprocess.Popen,
    *,
    cwd: Path,
    hold: Sequence[int] = (),
) -> int:
    """Run the worker and the server until the server ends or a stop signal comes; stop both.

    ``server`` is the server's argv, or its process already started (`GatedServer.open`).
    ``hold`` are descriptors the children keep open (the instance lock). Return the server's
    exit status, or 130 after SIGINT and 0 after another stop signal.
    """
    asked = _StopAsked()
    previous = {signum: signal.signal(signum, asked) for signum in STOP_SIGNALS}
    children: list[subprocess.Popen] = []
    try:
        # The server first, and the worker at a lower priority: on a busy machine the
        # worker's start-up (Django's checks, its first look at the store) and its syncs
        # give way to the pages people wait for.
        web = server if isinstance(server, subprocess.Popen) else _start(server, cwd, hold)
        children.append(web)
        children.append(_start(worker, cwd, hold, niceness=WORKER_NICENESS))
        while asked.signal is None:
            status = web.poll()
            if status is not None:
                return status
            time.sleep(POLL_SECONDS)
        return 130 if asked.signal == signal.SIGINT else 0
    finally:
        _stop(children)
        for signum, handler in previous.items():
            signal.signal(signum, handler)

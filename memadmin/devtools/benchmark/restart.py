"""Restart to first page: `memadmin serve` started again on a synced store, timed.

For each size, in a temporary folder removed afterwards: an upstream-shaped store of that
many memories (three projects, as `bench_sync` builds it), a first `memadmin serve
--context-db` (the full sync, then serving), and then RESTARTS restarts each way:

- to the login page: from starting `serve` to the login page answered, as a browser without
  a session sees it; the log-in that follows is timed on its own, and so is the whole way
  to the overview through it (login page, log-in, overview: what a person restarting and
  signing in at once waits for, while the worker makes its first look at the store);
- to the overview: from starting `serve` to the overview answered for a browser that kept
  its session from before the restart, the first page a returning user sees (the overview
  was seen once before, as on a store in use: its token counts are stored);
- to the coverage: from the same start to every project's coverage section answered, asked
  for at once as htmx asks for them when the overview has loaded (a new server process
  prepares each project's ledger for it: what the overview leaves to its sections).

Real processes on real files: the web server, the worker beside it, SQLite in the folder
(DATABASE_URL is ignored, so no real database is opened). The medians are printed with
issue 27's targets. Needs the repository's `tests` package (the store builder), so it runs
from a checkout.
"""

import html
import http.cookiejar
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

RESTART_TARGETS_S = {500: 3.0, 100_000: 5.0}  # issue 27: restart to first page
RESTARTS = 3
PASSWORD = "restart-benchmark"
STARTED_WITHIN_S = 600.0
SERVE = (sys.executable, "-m", "memadmin", "serve")
PERSON_ADD = (sys.executable, "-m", "django", "person", "add")
_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
_SECTION = re.compile(r'hx-get="([^"]*[?&]coverage=[^"]*)"')


@dataclass(frozen=True)
class RestartFigure:
    """One store size's start and restart times, in seconds (medians of RESTARTS)."""

    memories: int
    first_start_s: float
    login_page_s: float
    login_s: float
    through_login_s: float
    overview_s: float
    coverage_s: float

    @property
    def target_s(self) -> float | None:
        """Return issue 27's target for this size, if it names one."""
        return RESTART_TARGETS_S.get(self.memories)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


class _Served:
    """One `memadmin serve` on the store, started now; `stop()` ends it and its children."""

    def __init__(self, root: Path, folder: Path, port: int):
        self.base = f"http://127.0.0.1:{port}"
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [*SERVE, "--context-db", str(folder / "context.db"), "--port", str(port)],
            cwd=root,
            env=_environment(folder),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )

    def first(self, path: str, jar: http.cookiejar.CookieJar) -> tuple[float, str]:
        """Return the seconds from the start to `path` answered with 200, and the page."""
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _NoRedirect)
        deadline = self.started + STARTED_WITHIN_S
        while time.perf_counter() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"memadmin serve ended with status {self.process.returncode}")
            try:
                with opener.open(self.base + path, timeout=60) as response:
                    page = response.read().decode()
                return time.perf_counter() - self.started, page
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.02)
        raise RuntimeError(f"memadmin serve did not answer {path} within {STARTED_WITHIN_S} s")

    def sections(self, page: str, jar: http.cookiejar.CookieJar) -> float:
        """Ask for the page's coverage sections at once, as htmx does on load; return the
        seconds from the start to the last one answered with 200 (the page's, if none)."""
        paths = [html.unescape(path) for path in _SECTION.findall(page)]
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _NoRedirect)

        def ask(path: str) -> None:
            request = urllib.request.Request(self.base + path, headers={"HX-Request": "true"})
            with opener.open(request, timeout=60) as response:
                if "overview-injection" not in response.read().decode():
                    raise RuntimeError(f"{path} answered without the coverage")

        with ThreadPoolExecutor(max_workers=max(1, len(paths))) as pool:
            list(pool.map(ask, paths))
        return time.perf_counter() - self.started

    def log_in(self, login_page: str, jar: http.cookiejar.CookieJar) -> float:
        """Sign in as the benchmark's viewer; return the seconds the log-in took."""
        token = _TOKEN.search(login_page)
        if token is None:
            raise RuntimeError("the login page has no CSRF token")
        data = urllib.parse.urlencode(
            {"username": "bench", "password": PASSWORD, "csrfmiddlewaretoken": token.group(1)}
        ).encode()
        request = urllib.request.Request(
            self.base + "/login/", data=data, headers={"Referer": self.base + "/login/"}
        )
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar), _NoRedirect)
        started = time.perf_counter()
        try:
            opener.open(request, timeout=60).read()
            raise RuntimeError("the log-in was refused (no redirect)")
        except urllib.error.HTTPError as answer:
            if answer.code != 302:
                raise
        return time.perf_counter() - started

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def _environment(folder: Path) -> dict[str, str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "MEMADMIN_CONTEXT_DB")
    }
    environment.update(
        {
            "MEMADMIN_VAR_DIR": str(folder / "var"),
            "DJANGO_SETTINGS_MODULE": "memadmin.settings.local",
            "DJANGO_DEBUG": "0",
        }
    )
    return environment


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def restart_figure(memories: int, root: Path, progress: Callable[[str], None]) -> RestartFigure:
    """Build a store of `memories`, start memadmin on it, and time its restarts."""
    from memadmin.devtools.sync_benchmark import build

    folder = Path(tempfile.mkdtemp(prefix="memadmin-restart-"))
    try:
        progress(f"building an upstream store of {memories:,} memories")
        build(folder / "context.db", memories)
        port = _free_port()
        progress("the first start: its sync, then serving")
        served = _Served(root, folder, port)
        try:
            first_start, _ = served.first("/login/", http.cookiejar.CookieJar())
        finally:
            served.stop()
        subprocess.run(
            [*PERSON_ADD, "bench", "--role", "viewer", "--password", PASSWORD],
            cwd=root,
            env=_environment(folder),
            check=True,
            capture_output=True,
        )
        progress(
            "a start to see the overview and its coverage once, as on a store in use (counts stored)"
        )
        session = http.cookiejar.CookieJar()
        served = _Served(root, folder, port)
        try:
            served.log_in(served.first("/login/", session)[1], session)
            served.sections(served.first("/", session)[1], session)
        finally:
            served.stop()
        login_pages, logins, through_login, overviews, coverages = [], [], [], [], []
        progress(f"{RESTARTS} restarts to the login page, signing in, then the overview")
        for _ in range(RESTARTS):
            served = _Served(root, folder, port)
            try:
                jar = http.cookiejar.CookieJar()
                seconds, page = served.first("/login/", jar)
                login_pages.append(seconds)
                logins.append(served.log_in(page, jar))
                served.first("/", jar)
                through_login.append(time.perf_counter() - served.started)
            finally:
                served.stop()
        progress(f"{RESTARTS} restarts to the overview, the session kept")
        for _ in range(RESTARTS):
            served = _Served(root, folder, port)
            try:
                seconds, page = served.first("/", session)
                if "Overview" not in page:
                    raise RuntimeError("the kept session did not reach the overview")
                overviews.append(seconds)
                coverages.append(served.sections(page, session))
            finally:
                served.stop()
        return RestartFigure(
            memories=memories,
            first_start_s=first_start,
            login_page_s=statistics.median(login_pages),
            login_s=statistics.median(logins),
            through_login_s=statistics.median(through_login),
            overview_s=statistics.median(overviews),
            coverage_s=statistics.median(coverages),
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def restart_figures(
    sizes: Sequence[int], root: Path, progress: Callable[[str], None]
) -> list[RestartFigure]:
    """Return the restart figures of each store size, in order."""
    return [restart_figure(size, root, progress) for size in sizes]


def restart_lines(figures: Sequence[RestartFigure]) -> list[str]:
    """Return the report's lines: a table, then each target met or MISSED."""
    lines = [
        "Restart to first page (`memadmin serve` on a synced store; medians of "
        f"{RESTARTS} restarts each):",
        "",
        "| memories | first start, to the login page | restart to the login page | log-in "
        "| restart to the overview through the log-in | restart to the overview, session kept "
        "| restart to its coverage shown |",
        "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for figure in figures:
        lines.append(
            f"| {figure.memories:,} | {figure.first_start_s:.2f} s | {figure.login_page_s:.2f} s "
            f"| {figure.login_s:.2f} s | {figure.through_login_s:.2f} s "
            f"| {figure.overview_s:.2f} s | {figure.coverage_s:.2f} s |"
        )
    lines.append("")
    for figure in figures:
        if figure.target_s is None:
            continue
        slowest = max(figure.login_page_s, figure.overview_s)
        met = "met" if slowest < figure.target_s else "MISSED"
        lines.append(
            f"restart to first page at {figure.memories:,} memories (the login page, or the "
            f"overview with a session kept): {slowest:.2f} s (target < {figure.target_s:.0f} s): "
            f"{met}"
        )
    return lines

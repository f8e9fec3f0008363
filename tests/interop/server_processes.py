"""Run memadmin as real processes on a store: commands, a served dashboard, a killed writer.

Each process gets its own ``MEMADMIN_VAR_DIR`` (an SQLite database on disk), the way
``.ci/serve --context-db`` runs, so killing one and starting the next is a real restart.
"""

import atexit
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from tests import prepared

ROOT = Path(__file__).resolve().parents[2]


def environment(var_dir: Path) -> dict[str, str]:
    """Return the environment of a memadmin process on its own database in ``var_dir``."""
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        MEMADMIN_VAR_DIR=str(var_dir),
        DJANGO_SETTINGS_MODULE="memadmin.settings.local",
        MEMADMIN_STORE_TIMEOUT="2",
    )
    return env


def manage(var_dir: Path, *args: str) -> str:
    """Run one ``manage.py`` command to its end and return its output."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=environment(var_dir),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


_migrated_var_dir: Path | None = None


def migrated(var_dir: Path) -> None:
    """Run ``manage.py migrate`` on the database in ``var_dir``, or leave what it would.

    A folder with nothing in it yet gets a copy of the one this process migrated once, the
    first time it was asked: each migrate of a fresh database costs some 6 s of CPU, most of
    it Django rendering the migration state, and a dozen tests start from one. A folder that
    holds a database (a restart) is migrated for real. (The migrations themselves, such a
    fresh database against an upgraded one, are tests/interop/test_migrations.py's.)
    """
    global _migrated_var_dir
    if var_dir.exists() and any(var_dir.iterdir()):
        manage(var_dir, "migrate", "--verbosity", "0")
        return
    if _migrated_var_dir is None:
        _migrated_var_dir = prepared.migrated_var()  # migrated once for the whole test run
    if _migrated_var_dir is None:
        folder = Path(tempfile.mkdtemp(prefix="memadmin-migrated-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        manage(folder / "var", "migrate", "--verbosity", "0")
        _migrated_var_dir = folder / "var"
    shutil.copytree(_migrated_var_dir, var_dir, dirs_exist_ok=True)


def python(var_dir: Path, script: str, **kwargs) -> subprocess.Popen:
    """Start a Python process with Django set up on the database in ``var_dir``."""
    prelude = "import django\ndjango.setup()\n"
    return subprocess.Popen(
        [sys.executable, "-c", prelude + script],
        cwd=ROOT,
        env=environment(var_dir),
        stdout=subprocess.PIPE,
        text=True,
        **kwargs,
    )


# Each test process hands out its own ports, never one it handed out before: a server binds
# its port only once it is ready (`memadmin.serve_web`), so a port probed free can still be
# about to be taken by a server another test (or another xdist worker) is starting.
# `MEMADMIN_TEST_PORTS` moves the range of a whole run, so that two runs at once (the test
# command's two engines) never hand out the same port.
_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
_FIRST = int(os.environ.get("MEMADMIN_TEST_PORTS", "18500")) + 200 * _WORKER
_PORTS = iter(range(_FIRST, _FIRST + 200))


def free_port() -> int:
    """Return a port free now that no other test process is given."""
    for port in _PORTS:
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("this test process has used all its 200 ports")


class Server:
    """``manage.py runserver`` on a free port, as ``.ci/serve`` starts it."""

    def __init__(self, var_dir: Path):
        self.var_dir = var_dir
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen | None = None

    def start(self) -> "Server":
        self.process = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"127.0.0.1:{self.port}", "--noreload"],
            cwd=ROOT,
            env=environment(self.var_dir),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/login/", timeout=2)
                return self
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the server did not answer within a minute")

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None


class Browserless:
    """A signed-in HTTP client of a served dashboard: cookies and CSRF, no JavaScript."""

    def __init__(self, url: str):
        import http.cookiejar

        self.url = url
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))

    def get(self, path: str) -> str:
        with self.opener.open(f"{self.url}{path}", timeout=30) as response:
            return response.read().decode()

    def post(self, path: str, fields: dict, *, timeout: float = 30) -> str:
        import urllib.parse

        token = next(c.value for c in self.cookies if c.name == "csrftoken")
        data = urllib.parse.urlencode({**fields, "csrfmiddlewaretoken": token}).encode()
        with self.opener.open(f"{self.url}{path}", data=data, timeout=timeout) as response:
            return response.read().decode()

    def login(self, username: str, password: str) -> None:
        self.get("/login/")
        self.post("/login/", {"username": username, "password": password})

"""The wheel installs anywhere: built from the checkout, installed in a scratch environment,
`memadmin serve --demo` run from another folder serves the login page and its stylesheet.

Offline like the rest of the suite: the wheel is built with the test environment's setuptools
(--no-build-isolation), and the scratch environment reads the dependencies from this one's
site-packages through a `.pth` line, which does not carry the checkout's editable install.
"""

import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import time
import urllib.request
from pathlib import Path

import pytest

from tests.interop.server_processes import free_port

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ("pyproject.toml", "setup.py", "README.md", "memadmin", "templates", "static", "packs")

pytestmark = pytest.mark.timeout(360)


def _run(*command, cwd: Path, env=None) -> subprocess.CompletedProcess:
    finished = subprocess.run(
        [str(word) for word in command], cwd=cwd, env=env, capture_output=True, text=True
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return finished


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """Build the wheel from a copy of the checkout and install it; return the environment."""
    scratch = tmp_path_factory.mktemp("wheel")
    source = scratch / "source"
    source.mkdir()
    for name in SHIPPED:  # a copy: the build writes build/ and *.egg-info beside the sources
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy2(ROOT / name, source / name)
    python = sys.executable
    _run(python, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", scratch / "dist", ".", cwd=source)  # fmt: skip
    (wheel,) = (scratch / "dist").glob("memadmin-*.whl")
    environment = scratch / "env"
    _run(sys._base_executable, "-m", "venv", "--without-pip", environment, cwd=scratch)
    site = _run(environment / "bin" / "python", "-c",
                "import sysconfig; print(sysconfig.get_paths()['purelib'])", cwd=scratch)  # fmt: skip
    Path(site.stdout.strip(), "memadmin-deps.pth").write_text(
        sysconfig.get_paths()["purelib"] + "\n"
    )
    _run(python, "-m", "pip", "--python", environment / "bin" / "python", "install", "-q",
         "--no-deps", "--no-index", wheel, cwd=scratch)  # fmt: skip
    return environment


def _clean_environment(home: Path) -> dict[str, str]:
    """Return an environment without this checkout's settings, database or variables."""
    keep = {"PATH", "LANG", "LC_ALL", "TMPDIR"}
    environ = {key: value for key, value in os.environ.items() if key in keep}
    environ["HOME"] = str(home)
    return environ


def test_the_installed_package_is_not_the_checkout(installed, tmp_path):
    found = _run(installed / "bin" / "python", "-c", "import memadmin; print(memadmin.__file__)",
                 cwd=tmp_path, env=_clean_environment(tmp_path))  # fmt: skip
    assert Path(found.stdout.strip()).is_relative_to(installed)
    version = _run(installed / "bin" / "memadmin", "--version", cwd=tmp_path,
                   env=_clean_environment(tmp_path))  # fmt: skip
    assert version.stdout.strip() == "memadmin 0.1.0"


def test_serve_demo_from_another_folder_serves_the_login_page_and_its_stylesheet(
    installed, tmp_path
):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    port = free_port()
    server = subprocess.Popen(
        [installed / "bin" / "memadmin", "serve", "--demo", "--port", str(port)],
        cwd=elsewhere,
        env=_clean_environment(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        login = _first_answer(f"http://127.0.0.1:{port}/login/", server)
        assert 'href="/static/memadmin/memadmin.css"' in login
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/static/memadmin/memadmin.css") as css:
            assert css.status == 200
            assert b"--" in css.read()  # the stylesheet itself, not a page
    finally:
        server.send_signal(signal.SIGTERM)
        output, _ = server.communicate(timeout=30)
    assert "log in as admin (password memadmin-demo)" in output
    # Its data went to the user's data folder, not into site-packages or the working folder.
    assert (tmp_path / ".local" / "share" / "memadmin" / "memadmin.sqlite3").is_file()
    assert list(elsewhere.iterdir()) == []


def test_management_commands_run_through_the_installed_command(installed, tmp_path):
    """`memadmin manage` runs Django's commands and memadmin's, with the wheel's migrations.

    The migrations are planned here, not applied: the serve test above applies them all on a
    first start, from the wheel too."""
    environ = _clean_environment(tmp_path)
    plan = _run(installed / "bin" / "memadmin", "manage", "migrate", "--plan",
                cwd=tmp_path, env=environ)  # fmt: skip
    assert "memories.0001_initial" in plan.stdout
    assert "interop.0001_squashed" in plan.stdout
    packs = _run(
        installed / "bin" / "memadmin", "manage", "pack", "list", cwd=tmp_path, env=environ
    )
    assert "ops-six" in packs.stdout


def _first_answer(url: str, server: subprocess.Popen, within: float = 200) -> str:
    """Return the page at ``url`` once the server answers it; fail if the server ends first."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        assert server.poll() is None, server.stdout.read()
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return response.read().decode()
        except OSError:
            time.sleep(0.5)
    raise AssertionError(f"{url} did not answer within {within} s")

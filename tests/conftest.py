"""Fixtures shared by the whole suite: projects with packs installed, pack files, people with roles.

The suite runs twice in CI: on SQLite (no DATABASE_URL) and on PostgreSQL (DATABASE_URL set).
"""

import os
import re
import shutil
from pathlib import Path

import pytest
from _pytest import runner
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from memadmin.accounts.services import person_create
from memadmin.projects.services import project_create
from memadmin.taxonomy.services import pack_install, pack_load
from memadmin.web.chromium import chromium_executable
from tests.one_chunk import in_one_chunk

# Playwright's sync API runs an event loop in the test thread; Django's ORM calls made from
# the test itself are still synchronous and safe.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

PASSWORD = "correct horse battery staple"
PACKS = Path(settings.BASE_DIR) / "packs"

# Property tests judge behaviour, not speed: a busy CI machine must not fail them on time.
hypothesis_settings.register_profile(
    "memadmin", deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
hypothesis_settings.load_profile("memadmin")


@pytest.fixture(autouse=True)
def _fresh_process_caches():
    """Start and end each test with nothing kept by the process (`reset_process_caches`).

    Rolled-back tests give the same ids and markers again to other rows, and the database's
    token counts roll back too. The newer-store notice starts each test knowing of none,
    checked just now: a test's pages cost no query for it (tests/interop/write_through/test_newer_store.py
    asks for a fresh check).
    """
    from django.core.cache import cache

    from memadmin.core.process_cache import reset_process_caches
    from memadmin.interop.write_through.newer_stores import newer_forget

    reset_process_caches()
    newer_forget(recheck=False)
    yield
    reset_process_caches()
    cache.clear()  # the stale headers kept by the store's fingerprint, which comes again


@pytest.fixture(scope="session")
def cloned_test_database(django_db_modify_db_settings_parallel_suffix, django_db_blocker) -> bool:
    """Once the test database has its name (pytest-xdist's suffix), make it a copy of the
    database the test command migrated for the whole run, if it made one (tests/prepared.py);
    return whether it did."""
    from django.db import connection

    from tests.prepared import clone_test_database

    with django_db_blocker.unblock():
        return clone_test_database(connection)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(cloned_test_database):
    """pytest-django's hook before the test databases are set up: the clone is made there."""


@pytest.fixture(scope="session")
def django_db_keepdb(request, cloned_test_database):
    """pytest-django's `--reuse-db`; a cloned test database is kept as found (migrate has
    nothing to do on it) and removed by `django_db_setup` below."""
    return request.config.getvalue("reuse_db") or cloned_test_database


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker, cloned_test_database):
    """pytest-django's, then the cloned test database removed."""
    yield
    if cloned_test_database:
        from django.db import connection

        from tests.prepared import drop_test_database

        with django_db_blocker.unblock():
            drop_test_database(connection)


# What Django's flush leaves on PostgreSQL: the rows `migrate` made, which its post_migrate
# handlers would only make again, with other ids.
KEPT_BY_FLUSH = {"django_content_type", "auth_permission"}


@pytest.fixture(scope="session", autouse=True)
def _flush_by_delete_on_postgresql():
    """On PostgreSQL, empty the tables after a test that commits by DELETE, not TRUNCATE.

    Django ends each such test (a live server, `transaction=True`: some 150 a pass) with its
    flush, one TRUNCATE of every table: on tables this small that is half a second, most of
    it PostgreSQL making each table's files anew, and the post_migrate handlers then made the
    content types and permissions again. A DELETE of each table empties the same tables in
    the same transaction (Django's foreign keys are checked at its end), in a tenth of that;
    sequences go on as after a TRUNCATE without RESTART IDENTITY. A flush asked to reset the
    sequences or to cascade is Django's own.
    """
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        if reset_sequences or allow_cascade:
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        emptied = [table for table in tables if table not in KEPT_BY_FLUSH]
        return ["SET CONSTRAINTS ALL DEFERRED;"] + [
            f"DELETE FROM {self.quote_name(table)};" for table in emptied
        ]

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(DatabaseOperations, "sql_flush", sql_flush)
        yield


@pytest.fixture
def make_project(db):
    """Return a factory: a project with the named pack installed."""
    counter = iter(range(1, 10_000))

    def make(pack: str = "ops-six", *, identity: str | None = None, name: str | None = None):
        n = next(counter)
        project = project_create(
            identity=identity or f"git:{n:040x}",
            name=name or f"Project {n}",
            actor="system",
        )
        pack_install(project=project, spec=pack_load(pack), actor="system")
        project.refresh_from_db()
        return project

    return make


@pytest.fixture
def project(make_project):
    """A project on the ops-six pack."""
    return make_project("ops-six", identity="git:" + "a" * 40, name="Ops")


@pytest.fixture
def mc_project(make_project):
    """A project on the magic-context pack."""
    return make_project("magic-context", identity="git:" + "b" * 40, name="Plugin")


@pytest.fixture
def packs_dir(tmp_path, settings):
    """A copy of packs/ that the test may add variants to; settings.PACKS_DIR points at it."""
    directory = tmp_path / "packs"
    shutil.copytree(PACKS, directory)
    settings.PACKS_DIR = directory
    return directory


@pytest.fixture
def ops_variant(packs_dir):
    """Return a function writing ops-six.toml anew with text replacements applied in order."""
    original = (PACKS / "ops-six.toml").read_text()

    def write(*replacements: tuple[str, str], version: str = "1.1.0") -> Path:
        text = original.replace('version = "1.0.0"', f'version = "{version}"', 1)
        for old, new in replacements:
            assert old in text, f"{old!r} is not in ops-six.toml"
            text = text.replace(old, new)
        path = packs_dir / "ops-six.toml"
        path.write_text(text)
        return path

    return write


@pytest.fixture
def people(db):
    """One person per role, keyed by role name."""
    return {
        role: person_create(username=role, password=PASSWORD, role=role)
        for role in ("viewer", "editor", "curator", "admin")
    }


@pytest.fixture
def client_as(client, people):
    """Return a function that logs the test client in as the person with that role."""

    def login(role: str):
        client.force_login(people[role])
        return client

    return login


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium (`MEMADMIN_CHROMIUM` names another executable)."""
    chromium = chromium_executable(headless=browser_type_launch_args.get("headless", True))
    return {
        **browser_type_launch_args,
        "executable_path": os.environ.get("MEMADMIN_CHROMIUM") or chromium,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


def log_in(page, url: str, role: str):
    """Sign a browser page in at the live server `url` as the person with that role; return it.

    The session is made as the test client's `force_login` makes it, and its cookie given to
    the page's browser: the page has not been anywhere yet. Typing into the login form and
    landing on the overview took three page loads per test; browser tests that sign in
    through the form still do (`test_layout.py`, `test_undo.py`, with and without scripts).
    """
    client = Client()
    client.force_login(get_user_model().objects.get(username=role))
    name = settings.SESSION_COOKIE_NAME
    page.context.add_cookies([{"name": name, "value": client.cookies[name].value, "url": url}])
    return page


@pytest.fixture
def logged_in_page(page, live_server, people):
    """Return a function that logs a browser page in as the person with that role."""

    def login(role: str = "editor"):
        return log_in(page, live_server.url, role)

    return login


@pytest.fixture
def page_without_scripts(browser, live_server, people):
    """Return a function giving a page with JavaScript off, signed in as that role
    (`viewport` as Playwright takes it); its browser context is closed after the test."""
    contexts = []

    def open_page(role: str = "editor", *, viewport: dict | None = None):
        options = {"java_script_enabled": False}
        if viewport is not None:
            options["viewport"] = viewport
        contexts.append(browser.new_context(**options))
        return log_in(contexts[-1].new_page(), live_server.url, role)

    yield open_page
    for context in contexts:
        context.close()


# The fixtures through which a test reaches the database (pytest-django's; `django_db_blocker`
# when a test or one of its own fixtures asks for it by name).
DATABASE_FIXTURES = {
    "db",
    "transactional_db",
    "django_db_reset_sequences",
    "django_db_serialized_rollback",
    "live_server",
}


def _reaches_the_database(item) -> bool:
    if item.get_closest_marker("django_db") is not None:
        return True
    if DATABASE_FIXTURES & set(item.fixturenames):
        return True
    for name, definitions in item._fixtureinfo.name2fixturedefs.items():
        if name == "django_db_blocker" and name in item._fixtureinfo.argnames:
            return True
        own = definitions[-1]
        if "django_db_blocker" in own.argnames and not own.func.__module__.startswith(
            "pytest_django"
        ):
            return True
    return False


def pytest_collection_modifyitems(config, items):
    """Mark `engine_free` each test that cannot reach the database (pytest-django blocks it):
    it runs the same code on either engine, so the test command runs it on the first only.
    A process such a test starts serves SQLite (tests/interop/server_processes.py drops
    DATABASE_URL)."""
    for item in items:
        if not _reaches_the_database(item):
            item.add_marker(pytest.mark.engine_free)


# A run of the `alone` tests only: `-m alone`, or `-m "alone and ..."` (the test command's
# last step, once per engine).
ALONE_ONLY = re.compile(r"alone( and .+)?")


def pytest_ignore_collect(collection_path, config):
    """In a run of the `alone` tests only, leave out each test module whose text marks none
    (`pytest.mark.alone`): importing every module to deselect its tests took 1.5 s of the run's
    2."""
    if not ALONE_ONLY.fullmatch((config.option.markexpr or "").strip()):
        return None
    if collection_path.suffix != ".py" or not collection_path.name.startswith("test_"):
        return None
    return "mark.alone" not in collection_path.read_text(encoding="utf-8") or None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    """Run each test (set-up, call and teardown) as pytest does, from a frame that gives its
    calls one chunk of memory: CPython 3.12 maps and unmaps a chunk at every call across a
    chunk's end (tests/one_chunk.py), a sixth of the parameter walk's CPU. pytest's own
    implementation is the only one that runs tests; the other plugins wrap it, and still do."""
    return in_one_chunk(lambda: runner.pytest_runtest_protocol(item, nextitem))


def pytest_report_header(config):
    engine = settings.DATABASES["default"]["ENGINE"].rsplit(".", 1)[-1]
    return f"memadmin database engine: {engine}"

"""The settings served to other people: the deploy gate passes, and DEBUG is off unless asked."""

import importlib
import subprocess
import sys

import pytest
from django.core.management import call_command
from django.core.management.utils import get_random_secret_key
from django.test import override_settings

from memadmin.memories.services import memory_create
from memadmin.taxonomy.models import Category

pytestmark = pytest.mark.django_db


def production_settings(monkeypatch) -> dict:
    """Return memadmin.settings.production's values, as a deployment's environment sets them."""
    monkeypatch.setenv("DJANGO_SECRET_KEY", get_random_secret_key())
    monkeypatch.setenv("DJANGO_ALLOWED_HOSTS", "memadmin.example.org")
    # The browser tests' switch (tests/conftest.py) is no deployment's.
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE", raising=False)
    module = importlib.reload(importlib.import_module("memadmin.settings.production"))
    # The test database stays: the gate runs against it, with its data.
    return {
        name: getattr(module, name)
        for name in dir(module)
        if name.isupper() and name != "DATABASES"
    }


def test_the_deploy_gate_passes_with_flagged_categories(monkeypatch, project):
    """`check --deploy --fail-level WARNING` passes on a store with flagged memories.

    Memories in a category the pack lacks are a data matter, listed on the Import/export page
    and by `check --database default`: not a problem of the deployment.
    """
    memory_create(project=project, category="INCIDENTS", content="Flagged.", actor="agent")
    Category.objects.filter(project=project, name="INCIDENTS").delete()
    with override_settings(**production_settings(monkeypatch)):
        call_command("check", deploy=True, fail_level="WARNING")  # SystemCheckError if not


def debug_of(environment: dict) -> bool:
    """Return DEBUG as memadmin.settings.local sets it in a fresh process with `environment`."""
    code = "import memadmin.settings.local as s; print(s.DEBUG)"
    env = {"PATH": "/usr/bin:/bin", **environment}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return out.stdout.strip() == "True"


def test_debug_is_off_unless_asked(tmp_path):
    """The default settings show no traceback; DJANGO_DEBUG=1 is how a developer asks."""
    home = {"MEMADMIN_VAR_DIR": str(tmp_path)}
    assert debug_of(home) is False
    assert debug_of({**home, "DJANGO_DEBUG": "0"}) is False
    assert debug_of({**home, "DJANGO_DEBUG": "1"}) is True


def test_the_dashboard_starts_without_a_static_files_warning(tmp_path):
    """WhiteNoise warns when STATIC_ROOT is missing: a fresh var/ must not make it say so."""
    code = (
        "import os; os.environ['DJANGO_SETTINGS_MODULE'] = 'memadmin.settings.local'\n"
        "from django.core.wsgi import get_wsgi_application; get_wsgi_application()"
    )
    env = {"PATH": "/usr/bin:/bin", "MEMADMIN_VAR_DIR": str(tmp_path / "fresh")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "No directory at" not in out.stderr
    assert (tmp_path / "fresh" / "staticfiles").is_dir()

"""Security of the dashboard: CSRF on every POST, a content security policy, escaped text,
and a clean `check --deploy` under the production settings."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.history.selectors import criteria_versions, memory_versions
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from memadmin.taxonomy.selectors import category_by_name
from memadmin.taxonomy.services import criteria_override_save
from tests.html_tree import attribute, find

SCRIPT = '<script>alert("pwned")</script>'
ESCAPED = "&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;"


@pytest.fixture
def forged(people):
    """A signed-in admin's browser that does not send the CSRF token: only CSRF can refuse it."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(people["admin"])
    return client


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url_name",
    ["audit:memory_revert", "accounts:role", "accounts:create", "memories:edit"],
)
def test_a_post_without_the_csrf_token_is_forbidden(forged, make_memory, people, url_name):
    """A forged POST is refused with 403 before any view runs; nothing is written."""
    memory = make_memory("Deploy with just deploy.")
    args = {
        "audit:memory_revert": [memory.pk],
        "accounts:role": [people["viewer"].pk],
        "accounts:create": [],
        "memories:edit": [memory.pk],
    }[url_name]
    before = AuditEvent.objects.count(), Memory.history.count()
    response = forged.post(
        reverse(url_name, args=args),
        {"version": memory_versions(memory.pk)[0].history_id, "role": "admin", "content": "x"},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 403
    assert (AuditEvent.objects.count(), Memory.history.count()) == before


@pytest.mark.django_db
def test_every_page_carries_the_content_security_policy(client_as, make_memory):
    """Scripts come from this host with a nonce; no inline script or style is allowed."""
    memory = make_memory("Anything.")
    response = client_as("viewer").get(reverse("audit:memory_history", args=[memory.pk]))
    policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self' 'nonce-" in policy
    assert "style-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "frame-ancestors 'none'" in policy


@pytest.mark.django_db
def test_the_body_sends_the_csrf_token_on_every_htmx_request(client_as):
    """base.html puts the token in hx-headers, which htmx adds to every request."""
    response = client_as("viewer").get(reverse("audit:index"))
    token = str(response.context["csrf_token"])
    page = find(response.content.decode(), "body")
    assert json.loads(attribute(page, "hx-headers")) == {"X-CSRFToken": token}


@pytest.mark.django_db
def test_memory_text_is_escaped_on_every_history_page(client_as, make_memory):
    """A script in a memory is shown as text on the memory, history, compare and log pages."""
    memory = make_memory(f"Before {SCRIPT} after.")
    memory_update(memory=memory, actor="agent", content=f"Changed {SCRIPT} after.", reason=SCRIPT)
    first, second = memory_versions(memory.pk)
    client = client_as("viewer")
    pages = [
        reverse("memories:detail", args=[memory.pk]),
        reverse("audit:memory_history", args=[memory.pk]),
        reverse("audit:memory_compare", args=[memory.pk])
        + f"?a={first.history_id}&b={second.history_id}",
        reverse("audit:index"),
    ]
    for url in pages:
        html = client.get(url).content.decode()
        assert SCRIPT not in html, url
        assert ESCAPED in html, url


@pytest.mark.django_db
def test_criteria_text_is_escaped_on_the_history_pages(client_as, project):
    """A script in a category's criteria is shown as text when versions are compared."""
    category = category_by_name(project, "OPS_RULES")
    criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": f"Rules {SCRIPT}."},
        actor="system",
        reason=SCRIPT,
    )
    first, second = criteria_versions(project.pk, "OPS_RULES")
    client = client_as("viewer")
    for url in (
        reverse("audit:criteria_history", args=[project.pk, "OPS_RULES"]),
        reverse("audit:criteria_compare", args=[project.pk, "OPS_RULES"])
        + f"?a={first.history_id}&b={second.history_id}",
    ):
        html = client.get(url).content.decode()
        assert SCRIPT not in html, url
        assert ESCAPED in html, url


def test_check_deploy_is_clean_under_production_settings(tmp_path):
    """`manage.py check --deploy --fail-level WARNING` passes with the production settings."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_URL"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="memadmin.settings.production",
        DJANGO_SECRET_KEY="a-production-key-made-for-this-test-" + "x9Q#v2!pL7" * 4,
        DJANGO_ALLOWED_HOSTS="memadmin.example.org",
        MEMADMIN_VAR_DIR=str(tmp_path),
    )
    manage = Path(settings.BASE_DIR) / "manage.py"
    result = subprocess.run(
        [sys.executable, str(manage), "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout

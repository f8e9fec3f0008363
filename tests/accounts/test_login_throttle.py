"""Signing in is throttled (django-axes), and every page refuses browser features it never uses."""

import pytest
from django.test import Client

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


def sign_in(client: Client, username: str, password: str):
    return client.post("/login/", {"username": username, "password": password})


def test_fifty_wrong_passwords_lock_the_name_out_even_with_the_right_one(people):
    """After the fifth wrong password the right one is refused too (429), nothing signed in."""
    client = Client()
    statuses = [sign_in(client, "editor", f"wrong {n}").status_code for n in range(50)]
    assert statuses[:4] == [200] * 4  # the form again, saying the password is wrong
    assert set(statuses[5:]) == {429}
    right = sign_in(client, "editor", PASSWORD)
    assert right.status_code == 429
    assert b"Too many attempts" in right.content
    assert "_auth_user_id" not in client.session


def test_a_lockout_is_for_that_name_only(people):
    """Another person signing in from the same address is not locked out."""
    client = Client()
    for n in range(6):
        sign_in(client, "editor", f"wrong {n}")
    assert sign_in(Client(), "viewer", PASSWORD).status_code == 302


def test_a_success_before_the_limit_resets_the_count(people):
    """Four wrong passwords, the right one, four more wrong: still not locked out."""
    client = Client()
    for n in range(4):
        sign_in(client, "editor", f"wrong {n}")
    assert sign_in(client, "editor", PASSWORD).status_code == 302
    other = Client()
    for n in range(4):
        assert sign_in(other, "editor", f"wrong {n}").status_code == 200
    assert sign_in(other, "editor", PASSWORD).status_code == 302


def test_the_admin_login_is_throttled_too(people):
    """The admin's own login page counts the same failures."""
    client = Client()
    for n in range(5):
        client.post("/admin/login/", {"username": "admin", "password": f"wrong {n}"})
    response = client.post("/admin/login/", {"username": "admin", "password": PASSWORD})
    assert response.status_code == 429


def test_every_page_sends_a_permissions_policy(client_as):
    """Camera, microphone, geolocation and the like are refused to every page."""
    for client, path in ((Client(), "/login/"), (client_as("viewer"), "/memories/")):
        policy = client.get(path)["Permissions-Policy"]
        for feature in ("camera=()", "microphone=()", "geolocation=()", "payment=()"):
            assert feature in policy
        assert "clipboard-write=(self)" in policy

"""Signing in is throttled (django-axes), and every page refuses browser features it never uses."""

import pytest
from django.test import Client

from memadmin.core.client_address import trusted_networks
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


def behind_proxy(client_ip: str) -> Client:
    """A browser at `client_ip`, reaching the site through the proxy at 10.0.0.2."""
    return Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=client_ip)


def test_behind_a_trusted_proxy_the_lockout_hits_the_client_not_the_proxy(people, settings):
    """One client guessing is locked out; another client through the same proxy is not."""
    settings.MEMADMIN_TRUSTED_PROXIES = trusted_networks("10.0.0.2")
    guesser = behind_proxy("198.51.100.1")
    for n in range(5):
        sign_in(guesser, "editor", f"wrong {n}")
    assert sign_in(guesser, "editor", PASSWORD).status_code == 429
    assert sign_in(behind_proxy("198.51.100.2"), "editor", PASSWORD).status_code == 302


def test_a_forged_forwarded_header_does_not_escape_the_lockout(people, settings):
    """A client writing its own X-Forwarded-For is still counted by what the proxy appended."""
    settings.MEMADMIN_TRUSTED_PROXIES = trusted_networks("10.0.0.2")
    for n in range(5):
        sign_in(behind_proxy(f"6.6.6.{n}, 198.51.100.1"), "editor", f"wrong {n}")
    assert sign_in(behind_proxy("7.7.7.7, 198.51.100.1"), "editor", PASSWORD).status_code == 429


def test_without_trusted_proxies_the_header_is_ignored(people, settings):
    """Unconfigured, a client cannot pick a fresh address per guess with the header."""
    settings.MEMADMIN_TRUSTED_PROXIES = ()
    for n in range(5):
        sign_in(behind_proxy(f"198.51.100.{n}"), "editor", f"wrong {n}")
    assert sign_in(behind_proxy("198.51.100.99"), "editor", PASSWORD).status_code == 429

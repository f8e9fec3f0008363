"""The client's address past the trusted proxies: only what they appended is believed."""

import pytest

from memadmin.core.client_address import client_address, trusted_networks

PROXY = trusted_networks("10.0.0.2, 172.16.0.0/12, ::1")


def meta(peer: str, forwarded: str | None = None) -> dict:
    found = {"REMOTE_ADDR": peer}
    if forwarded is not None:
        found["HTTP_X_FORWARDED_FOR"] = forwarded
    return found


@pytest.mark.parametrize(
    ("peer", "forwarded", "client"),
    [
        ("203.0.113.7", None, "203.0.113.7"),  # no proxy
        ("203.0.113.7", "198.51.100.1", "203.0.113.7"),  # an untrusted peer's header is ignored
        ("10.0.0.2", "198.51.100.1", "198.51.100.1"),  # the proxy names the client
        ("10.0.0.2", "6.6.6.6, 198.51.100.1", "198.51.100.1"),  # what the client wrote is not
        ("10.0.0.2", "198.51.100.1, 172.16.4.5", "198.51.100.1"),  # two trusted proxies
        ("10.0.0.2", "", "10.0.0.2"),  # a proxy that names no one: the proxy itself
        ("10.0.0.2", "garbage, 198.51.100.1", "198.51.100.1"),
        ("10.0.0.2", "198.51.100.1:5151", "198.51.100.1"),  # a port
        ("::1", "[2001:db8::5]:443", "2001:db8::5"),
        ("10.0.0.3", "198.51.100.1", "10.0.0.3"),  # not the trusted one
    ],
)
def test_the_client_is_the_first_untrusted_hop_from_the_right(peer, forwarded, client):
    """Trusted proxies are walked past from the right; the first other address is the client."""
    assert client_address(meta(peer, forwarded), PROXY) == client


def test_with_no_trusted_proxy_the_header_means_nothing():
    """Without MEMADMIN_TRUSTED_PROXIES the peer's own address is the client."""
    assert client_address(meta("10.0.0.2", "198.51.100.1"), ()) == "10.0.0.2"


def test_a_peer_that_is_no_address_gives_none():
    """A request without an address (a test or script) has none."""
    assert client_address({}, PROXY) is None


def test_a_bad_trusted_entry_is_named():
    """A typo in the setting stops the start, naming the entry."""
    with pytest.raises(ValueError, match=r"'10\.0\.0\.300' is not an IP address"):
        trusted_networks("10.0.0.2, 10.0.0.300")

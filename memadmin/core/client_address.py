"""The address a request came from, seen through the reverse proxies this site trusts.

Behind a proxy every request arrives from the proxy's address; the proxy names the client in
`X-Forwarded-For`, appending the address it received from. A client can write that header
too, so only what trusted proxies appended is believed: walk the addresses from the right,
past every trusted proxy, and take the first one that is not (nginx's `real_ip_recursive`).
A request whose direct peer is not a trusted proxy is taken at its peer's address, whatever
its headers say. Pure Python: the settings parse the trusted list, axes asks for the address.
"""

import ipaddress
from collections.abc import Iterable, Mapping

type Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks(text: str) -> tuple[Network, ...]:
    """Return the networks written as "10.0.0.1, 172.16.0.0/12, ::1"; raise ValueError on a bad one.

    An address alone is a network of one; empty means no proxy is trusted.
    """
    networks = []
    for part in text.replace(",", " ").split():
        try:
            networks.append(ipaddress.ip_network(part, strict=False))
        except ValueError as error:
            raise ValueError(f"{part!r} is not an IP address or network (CIDR).") from error
    return tuple(networks)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    text = text.strip()
    if text.startswith("[") and "]" in text:  # [2001:db8::1]:443
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:  # 192.0.2.1:443
        text = text.split(":", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _trusted(address, networks: Iterable[Network]) -> bool:
    return any(address in network for network in networks)


def client_address(meta: Mapping[str, str], trusted: Iterable[Network]) -> str | None:
    """Return the client's address from a request's META, believing only trusted proxies.

    None when the peer's own address is not an address at all.
    """
    trusted = tuple(trusted)
    peer = _address(meta.get("REMOTE_ADDR", ""))
    if peer is None:
        return None
    if not _trusted(peer, trusted):
        return str(peer)
    hops = [hop for hop in meta.get("HTTP_X_FORWARDED_FOR", "").split(",") if hop.strip()]
    address = peer
    for hop in reversed(hops):
        named = _address(hop)
        if named is None:  # a hop no proxy of ours would write: stop at what we know
            break
        address = named
        if not _trusted(address, trusted):
            break
    return str(address)

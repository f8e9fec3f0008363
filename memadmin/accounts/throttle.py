"""Login throttling: django-axes's backend, for the sign-ins that come with a request.

Every sign-in through a page (the login page, the admin's) passes its request, and axes
counts its failures by username and address. A sign-in without one (the test client's
`login()`, a script calling `authenticate()`) has no address to count by; axes would refuse
it with an error, so it is left to the next backend, which checks the password as usual.

Behind a reverse proxy the address is the client's, as the trusted proxies name it
(`request_client_address`), so a lockout hits the person guessing, not everyone behind the
proxy.
"""

from axes.backends import AxesStandaloneBackend
from django.conf import settings

from memadmin.core.client_address import client_address


class LoginThrottleBackend(AxesStandaloneBackend):
    """Refuse a locked-out username and address; leave sign-ins without a request alone."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def request_client_address(request) -> str | None:
    """Return the address axes counts failures by: the client's, past the trusted proxies.

    The proxies are `settings.MEMADMIN_TRUSTED_PROXIES` (from the environment variable of
    that name); with none, the peer's own address, whatever its headers say.
    """
    return client_address(request.META, settings.MEMADMIN_TRUSTED_PROXIES)

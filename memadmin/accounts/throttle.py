"""Login throttling: django-axes's backend, for the sign-ins that come with a request.

Every sign-in through a page (the login page, the admin's) passes its request, and axes
counts its failures by username and address. A sign-in without one (the test client's
`login()`, a script calling `authenticate()`) has no address to count by; axes would refuse
it with an error, so it is left to the next backend, which checks the password as usual.
"""

from axes.backends import AxesStandaloneBackend


class LoginThrottleBackend(AxesStandaloneBackend):
    """Refuse a locked-out username and address; leave sign-ins without a request alone."""

    def authenticate(self, request, username=None, password=None, **kwargs):
        if request is None:
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)

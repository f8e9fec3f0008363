"""The Permissions-Policy header names only features the browser knows.

Chromium logs each feature it does not know as an error, on every page ("Error with
Permissions-Policy header: Unrecognized feature"). The header itself is tested in
`tests/accounts/test_login_throttle.py`.
"""

import pytest
from django.conf import settings

pytestmark = pytest.mark.browser


def test_every_feature_the_policy_names_is_one_chromium_knows(page):
    page.set_content("<p>A page.</p>")
    known = set(page.evaluate("document.featurePolicy.features()"))
    assert len(known) > 20  # the browser's list, not an empty one
    assert sorted(set(settings.PERMISSIONS_POLICY) - known) == []

"""System check: the store backend the settings name (`MEMADMIN_STORE`) can be made.

A configuration check, run by every command that checks (`manage.py check`, the worker as it
starts): a backend that cannot be imported is reported before any write needs it, not at the
first save.
"""

from django.core.checks import Error, register
from django.core.exceptions import ImproperlyConfigured


@register("memadmin")
def store_backend_can_be_made(app_configs, **kwargs):
    """Report a `MEMADMIN_STORE["BACKEND"]` that names nothing importable."""
    from .store import store_backend

    try:
        store_backend()
    except ImproperlyConfigured as error:
        return [
            Error(
                str(error),
                hint='Name a class, e.g. "memadmin.interop.store_backend.ContextDbStore".',
                id="memadmin.E001",
            )
        ]
    return []

"""WSGI entry point: `gunicorn memadmin.wsgi` (set DJANGO_SETTINGS_MODULE for production)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings.production")

application = get_wsgi_application()

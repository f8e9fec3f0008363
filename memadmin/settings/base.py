"""Settings shared by every environment: the embedded SQLite store unless DATABASE_URL says otherwise."""

import os
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from memadmin.core import locations
from memadmin.core.client_address import trusted_networks

# The repository in a checkout; the installed package's folder otherwise (see locations.py).
BASE_DIR = locations.CHECKOUT_DIR if locations.FROM_CHECKOUT else locations.PACKAGE_DIR
VAR_DIR = locations.var_dir()
PACKS_DIR = Path(os.environ.get("MEMADMIN_PACKS_DIR", locations.BUNDLED_PACKS_DIR))

SECRET_KEY = os.environ.get(
    "DJANGO_SECRET_KEY", "memadmin-local-development-key-not-for-production"
)
# Off unless asked (DJANGO_DEBUG=1): Django's debug pages show tracebacks and settings to
# whoever sees an error, so only a developer on their own machine turns them on.
DEBUG = os.environ.get("DJANGO_DEBUG", "") == "1"
ALLOWED_HOSTS = os.environ.get("DJANGO_ALLOWED_HOSTS", "127.0.0.1,localhost,testserver").split(",")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_tables2",
    "simple_history",
    "django_tasks_db",
    "axes",
    "memadmin.web",
    "memadmin.accounts",
    "memadmin.audit",
    "memadmin.projects",
    "memadmin.taxonomy",
    "memadmin.memories",
    "memadmin.composites",
    "memadmin.headermap",
    "memadmin.ledger",
    "memadmin.interop",
    "memadmin.curation",
    "memadmin.structure",
    "memadmin.history",
    "memadmin.overview",
    "memadmin.devtools",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.auth.middleware.LoginRequiredMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "memadmin.urls"
WSGI_APPLICATION = "memadmin.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [locations.TEMPLATES_DIR],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "memadmin.accounts.context_processors.roles",
                "memadmin.accounts.context_processors.theme",
                "memadmin.interop.context_processors.newer_stores_notice",
            ],
        },
    },
]


def _sqlite_database(path: Path) -> dict:
    """Return the embedded store's settings: WAL, a busy timeout and IMMEDIATE transactions.

    Each connection keeps SQLite's default page cache (2 MB): the pages a large read goes
    through (a ledger of 100,000 memories reads them all once, then keeps its rows itself)
    would stay resident a second time, some 50 MB at 98,000 memories with a 64 MB cache, and
    a page read again comes from the system's file cache.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    return {
        "ENGINE": "django.db.backends.sqlite3",
        "NAME": path,
        "OPTIONS": {
            "timeout": 20,
            "transaction_mode": "IMMEDIATE",
            "init_command": (
                "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;"
            ),
        },
    }


if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60)}
else:
    DATABASES = {"default": _sqlite_database(VAR_DIR / "memadmin.sqlite3")}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = False
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [locations.STATIC_DIR]
STATIC_ROOT = VAR_DIR / "staticfiles"

# Login throttling (django-axes): after 5 wrong passwords for one username from one address,
# that pair is locked out for 15 minutes, even with the right password; a success resets the
# count. Attempts are kept in the database (both engines). `manage.py axes_reset` unlocks.
AUTHENTICATION_BACKENDS = [
    "memadmin.accounts.throttle.LoginThrottleBackend",
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = 5
AXES_COOLOFF_TIME = timedelta(minutes=15)
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_RESET_ON_SUCCESS = True
AXES_DISABLE_ACCESS_LOG = True  # failures only: sign-ins are in the sessions already
AXES_ENABLE_ADMIN = False  # its pages would write around the services; the command unlocks
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_VERBOSE = False
# Behind a reverse proxy, failures are counted by the client's address as the proxies name it
# in X-Forwarded-For: MEMADMIN_TRUSTED_PROXIES lists their addresses or networks ("10.0.0.2,
# 172.16.0.0/12"). Only what those appended is believed; with none, the peer's own address.
try:
    MEMADMIN_TRUSTED_PROXIES = trusted_networks(os.environ.get("MEMADMIN_TRUSTED_PROXIES", ""))
except ValueError as bad:
    raise ImproperlyConfigured(f"MEMADMIN_TRUSTED_PROXIES: {bad}") from bad
AXES_CLIENT_IP_CALLABLE = "memadmin.accounts.throttle.request_client_address"

# Browser features no page uses are refused to every page and frame (Permissions-Policy);
# copying a memory's text to the clipboard is the one this host keeps.
PERMISSIONS_POLICY = {
    feature: []
    for feature in (
        "accelerometer",
        "autoplay",
        "browsing-topics",
        "camera",
        "display-capture",
        "encrypted-media",
        "fullscreen",
        "geolocation",
        "gyroscope",
        "hid",
        "idle-detection",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "publickey-credentials-get",
        "screen-wake-lock",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )
} | {"clipboard-write": ["self"]}

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"  # the overview
LOGOUT_REDIRECT_URL = "login"

# Pages are served from this host only: htmx comes from django-htmx's bundled copy, styles from
# static/, pictures are inline SVG. Nothing is loaded from elsewhere and no inline script runs.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}

# Background work (syncs started from the web, the periodic store refresh) is queued in the
# database and run by `manage.py run_worker`: no extra server on SQLite or PostgreSQL.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}

DJANGO_TABLES2_TEMPLATE = "django_tables2/table.html"

SIMPLE_HISTORY_HISTORY_CHANGE_REASON_USE_TEXT_FIELD = True

MEMADMIN_TOKENIZER_DIR = Path(
    os.environ.get("MEMADMIN_TOKENIZER_DIR", locations.default_tokenizer_dir())
)

# The store backend every person's edit of a synced project goes through
# (`memadmin/projects/store.py`); without this setting nothing is written outside memadmin.
MEMADMIN_STORE = {"BACKEND": "memadmin.interop.store_backend.ContextDbStore"}

# How edits of projects synced from a magic-context store reach it (see docs/store-protocol.md,
# "What is written to the store, and when"): "through" writes each edit to the store at once, "pending" keeps
# it for the next sync on the machine with the file (a team server), "off" never writes.
MEMADMIN_STORE_WRITES = os.environ.get("MEMADMIN_STORE_WRITES", "through")
MEMADMIN_STORE_TIMEOUT = float(os.environ.get("MEMADMIN_STORE_TIMEOUT", "5"))

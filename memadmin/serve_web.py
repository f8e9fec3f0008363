"""The web server of `memadmin serve`, started while `serve` still prepares the database.

    python -m memadmin.serve_web GATE_FD ADDRESS

Sets Django up and gets ready for the first request (`ready`: every view imported, the
addresses' reverse tables built, the middleware loaded, the templates of the pages a restart
shows first compiled, the migration files imported for the server's check of them: what
listening and the first request would otherwise wait for), then waits for one byte
on the descriptor GATE_FD: `serve` writes it once the migrations are applied and the store
is set up, and only then does Django's development server listen on ADDRESS (without
reloading, and without the system checks the worker runs as it starts). The pipe closed
without that byte means `serve` gave up: the server ends without listening. So the two
processes' start-ups overlap, and no page is served from an unmigrated database. Nothing
here reads the database: getting ready takes the same time whatever the store's size.
"""

import os
import sys

# The pages a restart shows first: the login page, and the overview to a kept session.
FIRST_TEMPLATES = ("registration/login.html", "overview/index.html")


def ready() -> None:
    """Do now, once, what the first request would do: no database read."""
    from django.core.servers.basehttp import get_internal_wsgi_application
    from django.db.migrations.loader import MigrationLoader
    from django.template.loader import get_template
    from django.urls import get_resolver

    _build_reverse_tables(get_resolver())
    get_internal_wsgi_application()  # the middleware, as runserver will use it (imported once)
    for name in FIRST_TEMPLATES:
        get_template(name)  # compiled, and kept by the cached loader
    # runserver checks the migrations before it listens: their files, read without a
    # database here, are imported once; the check then reads the applied ones only.
    MigrationLoader(None, ignore_no_migrations=True)


def _build_reverse_tables(resolver) -> None:
    resolver.reverse_dict  # noqa: B018 (built on first use: every view imported, every route)
    for _prefix, included in resolver.namespace_dict.values():
        _build_reverse_tables(included)


def main(argv: list[str]) -> int:
    """Get ready, wait at the gate, then serve; return the exit status."""
    gate, address = int(argv[0]), argv[1]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings.local")
    import django

    django.setup()
    ready()
    with os.fdopen(gate, "rb") as opened:
        if opened.read(1) != b"o":
            return 1
    from django.core.management import call_command

    call_command("runserver", address, use_reloader=False, skip_checks=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

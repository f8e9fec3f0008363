"""The web server of `memadmin serve`, started while `serve` still prepares the database.

    python -m memadmin.serve_web GATE_FD ADDRESS

Sets Django up and imports every view (what the first request would otherwise wait for),
then waits for one byte on the descriptor GATE_FD: `serve` writes it once the migrations
are applied and the store is set up, and only then does Django's development server listen
on ADDRESS (without reloading, and without the system checks the worker runs as it starts).
The pipe closed without that byte means `serve` gave up: the server ends without listening.
So the two processes' start-ups overlap, and no page is served from an unmigrated database.
"""

import os
import sys


def main(argv: list[str]) -> int:
    """Get ready, wait at the gate, then serve; return the exit status."""
    gate, address = int(argv[0]), argv[1]
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings.local")
    import django

    django.setup()
    from django.urls import get_resolver

    get_resolver().url_patterns  # noqa: B018 (imports every view module now)
    with os.fdopen(gate, "rb") as opened:
        if opened.read(1) != b"o":
            return 1
    from django.core.management import call_command

    call_command("runserver", address, use_reloader=False, skip_checks=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

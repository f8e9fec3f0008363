#!/usr/bin/env python
"""Django's command-line utility for administrative tasks."""

import os
import sys


def main() -> None:
    """Run administrative tasks."""
    if sys.version_info < (3, 12):  # noqa: UP036  (a clear message on an older python3)
        sys.exit(
            f"memadmin needs Python 3.12 or newer; this is {sys.version.split()[0]}. "
            "Use .venv/bin/python (made by .ci/setup)."
        )
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings.local")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()

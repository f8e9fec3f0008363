"""Serve one page in a fresh process, as a server worker would, and print its resident memory.

`manage.py benchmark` runs this module in a child process on its own database (the child
inherits MEMADMIN_VAR_DIR and the settings): the benchmark's process built the store and
assembled it many times, so its own resident size says more about the builder than about a
server. Prints one line of JSON: the page's status and the resident memory in MB, before and
after the page.

    python -m memadmin.devtools.benchmark.server_memory URL USERNAME PASSWORD
"""

import json
import sys


def resident_mb() -> float:
    """Return this process's resident memory now, in MB (Linux's /proc)."""
    with open("/proc/self/status", encoding="ascii") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    return int(fields["VmRSS"].split()[0]) / 1024


def main(url: str, username: str, password: str) -> dict:
    """Serve the page once as `username` and return its status and the memory around it."""
    import django

    django.setup()
    from django.test import Client

    client = Client()
    if not client.login(username=username, password=password):
        raise RuntimeError(f"{username} could not log in")
    before = resident_mb()
    status = client.get(url).status_code
    return {"status": status, "before_mb": before, "after_mb": resident_mb()}


if __name__ == "__main__":
    print(json.dumps(main(*sys.argv[1:4])))

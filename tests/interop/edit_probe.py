"""Save one memory through its edit form again and again, as a person would; print the outcome.

    MEMADMIN_VAR_DIR=... python -m tests.interop.edit_probe STOP_FILE CONTENT

Run as its own process by `test_sync_starvation.py`: posts the edit form of the memory whose
text is CONTENT (a real request through the view, its form and the service, written through
to the store) with a new importance each time, until STOP_FILE exists; then prints one JSON
object: each response's status and the importance of the last save that went through.
"""

import json
import os
import re
import sys
import time
from pathlib import Path


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings.local")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from memadmin.memories.models import Memory

    stop, content = Path(sys.argv[1]), sys.argv[2]
    memory = Memory.objects.get(content=content)
    client = Client()
    client.force_login(get_user_model().objects.get(username="prober"))
    statuses, last, refusals = [], None, []
    importance = 1
    while not stop.exists():
        memory.refresh_from_db()
        importance = importance % 99 + 1
        response = client.post(
            f"/memories/{memory.pk}/edit/",
            {
                "content": memory.content,
                "category": memory.category,
                "importance": importance,
                "scope": memory.scope,
                "status": memory.status,
                "reason": "editing while a sync runs",
                "expected_updated_at": memory.updated_at,
            },
        )
        statuses.append(response.status_code)
        if response.status_code == 302:
            last = importance
        else:
            refusals.append(_errors(response.content.decode()))
        time.sleep(0.1)
    print(json.dumps({"statuses": statuses, "last": last, "refusals": refusals}))


def _errors(page: str) -> str:
    """Return what the page told the person: its sentences saying what to do or what was kept."""
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", page))
    told = re.findall(r"[^.]*(?:[Nn]othing|try again|[Bb]oth versions)[^.]*\.", text)
    return " ".join(sentence.strip() for sentence in told) or text[:300]


if __name__ == "__main__":
    main()

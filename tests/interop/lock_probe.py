"""Save a memory through the edit form again and again while a sync runs; print the timings.

    MEMADMIN_VAR_DIR=... python -m tests.interop.lock_probe prepare
    MEMADMIN_VAR_DIR=... python -m tests.interop.lock_probe probe STOP_FILE

Run as its own process by `test_sync_locks.py`, against a database on disk that a sync in
another process writes to. ``prepare`` makes a project, a memory and an editor; ``probe``
posts the memory's edit form (a real request through the view, its form and the service)
until ``STOP_FILE`` exists, then prints one JSON object: every save's duration in seconds
and each response's status.
"""

import json
import os
import sys
import time
from pathlib import Path


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memadmin.settings.local")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from memadmin.accounts.services import person_create
    from memadmin.memories.models import Memory
    from memadmin.memories.services import memory_create
    from memadmin.projects.services import project_create
    from memadmin.taxonomy.services import pack_install, pack_load

    command = sys.argv[1]
    if command == "prepare":
        project = project_create(identity="git:" + "e" * 40, name="Edited", actor="system")
        pack_install(project=project, spec=pack_load("magic-context"), actor="system")
        memory = memory_create(
            project=project, category="PROJECT_RULES", content="Probe memory.", actor="system"
        )
        person_create(username="prober", password="probe-password-1", role="editor")
        print(memory.pk)
        return
    stop = Path(sys.argv[2])
    memory = Memory.objects.get(content="Probe memory.")
    client = Client()
    client.force_login(get_user_model().objects.get(username="prober"))
    durations, statuses = [], []
    importance = 1
    while not stop.exists():
        memory.refresh_from_db()
        importance = importance % 100 + 1
        began = time.perf_counter()
        response = client.post(
            f"/memories/{memory.pk}/edit/",
            {
                "content": memory.content,
                "category": memory.category,
                "importance": importance,
                "scope": memory.scope,
                "status": memory.status,
                "reason": "probe",
                "expected_updated_at": memory.updated_at,
            },
        )
        durations.append(time.perf_counter() - began)
        statuses.append(response.status_code)
        time.sleep(0.05)
    print(json.dumps({"durations": durations, "statuses": statuses}))


if __name__ == "__main__":
    main()

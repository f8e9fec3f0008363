"""Save screenshots of the main pages at a phone's and a desktop's width, light and dark."""

import threading
from pathlib import Path

from django.conf import settings
from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.contrib.sessions.backends.db import SessionStore
from django.contrib.staticfiles.handlers import StaticFilesHandler
from django.core.management.base import BaseCommand, CommandError
from django.core.servers.basehttp import ThreadedWSGIServer, WSGIRequestHandler
from django.core.wsgi import get_wsgi_application
from django.urls import reverse

from memadmin.memories.models import Memory
from memadmin.projects.models import Project
from memadmin.web.chromium import chromium_executable

SIZES = ((390, 844), (1400, 900))  # a phone, a desktop
THEMES = ("light", "dark")


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, *args):
        pass


def pages() -> dict[str, str]:
    """Return the pages to photograph by name: the overview, the memory list, a memory, a
    composite, the ledger, the map and the project's Structure page."""
    project = Project.objects.filter(memories__isnull=False).order_by("pk").distinct().first()
    if project is None:
        raise CommandError("There is no project with memories: run `manage.py demo` first.")
    memory = (
        Memory.objects.filter(project=project, status="active", headed_composites__isnull=False)
        .order_by("-importance", "pk")
        .first()
        or Memory.objects.filter(project=project).order_by("pk").first()
    )
    composite = memory.headed_composites.order_by("pk").first()
    shown = {
        "overview": reverse("home"),
        "memories": reverse("memories:list") + f"?project={project.pk}",
        "memory": reverse("memories:detail", args=[memory.pk]),
        "ledger": reverse("ledger:page", args=[project.pk]),
        "map": reverse("headermap:index") + f"?project={project.pk}",
        "structure": reverse("structure:page", args=[project.pk]),
    }
    if composite is not None:
        shown["composite"] = reverse("composites:detail", args=[composite.pk])
    return shown


class Command(BaseCommand):
    help = (
        "Save PNG screenshots of the overview, the memory list, a memory page, a composite, the "
        "ledger, the map and the Structure page at 390 px and 1400 px, in the light and the dark "
        "theme, into DIR "
        "(Chromium via Playwright)."
    )

    def add_arguments(self, parser):
        parser.add_argument("directory", metavar="DIR", type=Path)
        parser.add_argument("--user", default="", help="whose view to show (default: an admin)")
        parser.add_argument(
            "--base-url",
            default="",
            help="photograph a server already running on this database (default: start one)",
        )
        parser.add_argument("--port", type=int, default=0, help="port of the server it starts")
        parser.add_argument(
            "--chromium",
            default=chromium_executable(),
            help="the Chromium executable (default: Debian's headless shell, else its browser)",
        )

    def handle(self, *args, directory: Path, user: str, base_url: str, port: int, chromium, **_):
        from playwright.sync_api import sync_playwright

        person = self._person(user)
        targets = pages()
        directory.mkdir(parents=True, exist_ok=True)
        server = None
        if not base_url:
            server = ThreadedWSGIServer(("127.0.0.1", port), _QuietHandler)
            server.set_app(StaticFilesHandler(get_wsgi_application()))
            threading.Thread(target=server.serve_forever, daemon=True).start()
            base_url = f"http://127.0.0.1:{server.server_address[1]}"
        base_url = base_url.rstrip("/")
        # Django refuses database work inside Playwright's event loop: sign in before it runs.
        cookie = self._cookie(person, base_url)
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(
                    executable_path=chromium, args=["--no-sandbox", "--disable-gpu"]
                )
                for width, height in SIZES:
                    for theme in THEMES:
                        context = browser.new_context(
                            viewport={"width": width, "height": height}, color_scheme=theme
                        )
                        context.add_cookies([cookie])
                        page = context.new_page()
                        for name, path in targets.items():
                            page.goto(base_url + path, wait_until="networkidle")
                            out = directory / f"{name}-{width}-{theme}.png"
                            page.screenshot(path=str(out), full_page=True)
                            self.stdout.write(f"{out}")
                        context.close()
                browser.close()
        finally:
            if server is not None:
                server.shutdown()
                server.server_close()

    def _person(self, username: str):
        people = get_user_model().objects
        person = (
            people.filter(username=username).first()
            if username
            else people.filter(is_superuser=True, is_active=True).order_by("pk").first()
        )
        if person is None:
            raise CommandError(
                f"No person {username!r}." if username else "No admin yet: run `manage.py demo`."
            )
        return person

    def _cookie(self, person, base_url: str) -> dict:
        """Return a session cookie that signs the browser in as the person, no password asked."""
        session = SessionStore()
        session[SESSION_KEY] = str(person.pk)
        session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        session[HASH_SESSION_KEY] = person.get_session_auth_hash()
        session.create()
        return {"name": settings.SESSION_COOKIE_NAME, "value": session.session_key, "url": base_url}

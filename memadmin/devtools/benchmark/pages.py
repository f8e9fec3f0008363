"""Time the pages people see, as a viewer, an editor and an admin, beside Django's own admin.

Every page is served through Django's test client, server side: a first request fills the
caches, then the median of REPEATS requests is kept, with its CPU time and its queries.
The memory list is timed beside the stock admin changelist of the same rows, in the same
run, in five cases (all rows, one project, a text search, a deep page, a sort). The ledger
page is also timed right after a write (the prepared store must be rebuilt), and the
resident memory after the large project's ledger page is read in a fresh server process
(`server_memory`) and in this one.
"""

import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from memadmin.composites.models import CompositeMember
from memadmin.ledger.counters import CounterChoice
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update

from .store import PASSWORD, READERS, BenchStore

REPEATS = 5
AFTER_WRITE_REPEATS = 3
ROLES = ("viewer", "editor", "admin")
SEARCH_WORD = "deploy"
DEEP_PAGE = 50


@dataclass(frozen=True)
class PageFigure:
    """One page as one role: memories behind it, median server and CPU time, queries."""

    name: str
    role: str
    memories: int
    median_ms: float
    cpu_ms: float
    queries: int
    size: str = ""  # "small" or "large" where the same page is timed for both projects


@dataclass(frozen=True)
class ListCase:
    """One of the five cases of the memory list, beside the admin changelist of its rows."""

    name: str
    ours: PageFigure  # as an editor
    admin: PageFigure  # Django's stock changelist, as an admin

    @property
    def ratio(self) -> float:
        """Return how many times the admin's time ours takes."""
        return self.ours.median_ms / self.admin.median_ms if self.admin.median_ms else 0.0


@dataclass(frozen=True)
class PageReport:
    """Everything measured on pages in one run."""

    pages: list[PageFigure]
    cases: list[ListCase]
    after_write: PageFigure
    rss_mb: float  # resident memory after the large project's ledger page, this process
    peak_rss_mb: float  # the most this process ever held
    server_rss_mb: float = 0.0  # the same in a fresh process serving only that page (0: not read)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def time_page(client: Client, url: str) -> tuple[float, float, int]:
    """Return the median server and CPU time of a page over REPEATS requests, and its queries.

    A first request fills the caches, as a reader's first visit would; the pages are then
    timed hot, as a running server serves them.
    """
    response = client.get(url)
    if response.status_code != 200:
        raise RuntimeError(f"{url} answered {response.status_code}")
    return _medians([_timed_get(client, url) for _ in range(REPEATS)])


def _timed_get(client: Client, url: str) -> tuple[float, float, int]:
    """Return one request's server time, its CPU time (both in ms) and its queries."""
    with CaptureQueriesContext(connection) as captured:
        cpu = time.process_time()
        start = time.perf_counter()
        client.get(url)
        timed = (_ms(start), (time.process_time() - cpu) * 1000)
    return (*timed, len(captured))


def _medians(runs: list[tuple[float, float, int]]) -> tuple[float, float, int]:
    """Return the median server and CPU times of the runs, and the last run's queries."""
    return (
        statistics.median(run[0] for run in runs),
        statistics.median(run[1] for run in runs),
        runs[-1][2],
    )


def _clients() -> dict[str, Client]:
    clients = {}
    for role, username in READERS.items():
        client = Client()
        if not client.login(username=username, password=PASSWORD):
            raise RuntimeError(f"the benchmark {role} could not log in")
        clients[role] = client
    return clients


def _small_member(store: BenchStore) -> int:
    """Return the pk of a member of one of the small project's composites."""
    return (
        CompositeMember.objects.filter(composite__project=store.small)
        .order_by("pk")
        .values_list("member_id", flat=True)
        .first()
    )


def project_pages(store: BenchStore, counter: CounterChoice) -> list[tuple[str, str, str, int]]:
    """Return (name, size, url, memories) of each page timed for both projects."""
    pages = []
    hub_of = {"small": _small_member(store), "large": store.hub}
    for size, project in (("small", store.small), ("large", store.large)):
        count = project.memories.count()
        pk = project.pk
        pages += [
            ("memory list, one project", size, f"/memories/?project={pk}", count),
            ("map", size, f"/map/?project={pk}", count),
            ("ledger", size, f"/ledger/{pk}/?counter={counter.name}", count),
            ("composites list", size, f"/composites/?project={pk}", count),
            ("stale queue", size, f"/map/stale/?project={pk}", count),
            ("criteria page", size, f"/criteria/?project={pk}", count),
            ("criteria category", size, f"/criteria/{pk}/PROJECT_RULES/", count),
            ("history, one project", size, f"/history/?project={pk}", count),
            ("memory detail (in many composites)", size, f"/memories/{hub_of[size]}/", count),
            ("memory history", size, f"/history/memories/{hub_of[size]}/", count),
        ]
    return pages


def list_cases(store: BenchStore) -> list[tuple[str, str, str]]:
    """Return (case, our url, the admin's url) for the five cases of the memory list."""
    pk = store.large.pk
    admin = "/admin/memories/memory/"
    # The admin shows 100 rows a page: a small test store has fewer pages than DEEP_PAGE.
    deep = max(1, min(DEEP_PAGE, store.memories // 100))
    return [
        ("all rows", "/memories/", admin),
        ("one project", f"/memories/?project={pk}", f"{admin}?project__id__exact={pk}"),
        (f"text search {SEARCH_WORD!r}", f"/memories/?q={SEARCH_WORD}", f"{admin}?q={SEARCH_WORD}"),
        (f"page {deep}", f"/memories/?page={deep}", f"{admin}?p={deep}"),
        ("sorted by importance", "/memories/?sort=-importance", f"{admin}?o=-6"),
    ]


def _figure(client: Client, name: str, role: str, url: str, memories: int, size: str = ""):
    wall, cpu, queries = time_page(client, url)
    return PageFigure(name, role, memories, wall, cpu, queries, size)


def _after_write(client: Client, store: BenchStore, counter: CounterChoice) -> PageFigure:
    """Time the large project's ledger page right after an edit, the median of a few."""
    url = f"/ledger/{store.large.pk}/?counter={counter.name}"
    memory = Memory.objects.filter(project=store.large, status="active").order_by("pk").first()
    runs = []
    for step in range(AFTER_WRITE_REPEATS):
        memory = memory_update(
            memory=memory, actor="system", importance=40 + step, reason="benchmark write"
        )
        runs.append(_timed_get(client, url))
    wall, cpu, queries = _medians(runs)
    return PageFigure(
        "ledger right after a write",
        "editor",
        store.large.memories.count(),
        wall,
        cpu,
        queries,
        "large",
    )


def _rss_mb() -> tuple[float, float]:
    """Return the process's resident memory now and at its peak, in MB."""
    with open("/proc/self/status", encoding="ascii") as status:
        fields = dict(line.split(":", 1) for line in status if ":" in line)
    now = int(fields["VmRSS"].split()[0]) / 1024
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return now, peak


def server_rss_mb(store: BenchStore, counter: CounterChoice) -> float:
    """Return the resident memory of a fresh process after the large ledger page, in MB.

    The process is a server worker's: Django set up, one login (the viewer), the page. The
    benchmark's own process also built the store and assembled it many times over. The
    store must be committed in a database the child opens through the settings.
    """
    url = f"/ledger/{store.large.pk}/?counter={counter.name}"
    username = READERS["viewer"]
    finished = subprocess.run(
        [
            sys.executable,
            "-m",
            "memadmin.devtools.benchmark.server_memory",
            url,
            username,
            PASSWORD,
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=settings.BASE_DIR,  # `-m` imports from the working folder: this memadmin
    )
    answer = json.loads(finished.stdout.strip().splitlines()[-1])
    if answer["status"] != 200:
        raise RuntimeError(f"{url} answered {answer['status']} in the server process")
    return answer["after_mb"]


def page_figures(
    store: BenchStore, counter: CounterChoice, progress: Callable[[str], None]
) -> PageReport:
    """Time every page as each role, the five list cases beside the admin, and the memory."""
    clients = _clients()
    figures = []
    rss = (0.0, 0.0)
    for name, size, url, memories in project_pages(store, counter):
        for role in ROLES:
            progress(f"timing {name}, {size} project, as {role}")
            figures.append(_figure(clients[role], name, role, url, memories, size))
            if name == "ledger" and size == "large" and role == "viewer":
                rss = _rss_mb()
    for name, url, memories in (
        ("memory list, every project", "/memories/", store.memories),
        ("history", "/history/", store.memories),
    ):
        for role in ROLES:
            progress(f"timing {name} as {role}")
            figures.append(_figure(clients[role], name, role, url, memories))
    cases = []
    for name, ours, admin in list_cases(store):
        progress(f"timing the memory list, {name}, beside the admin")
        cases.append(
            ListCase(
                name,
                _figure(clients["editor"], name, "editor", ours, store.memories),
                _figure(clients["admin"], name, "admin", admin, store.memories),
            )
        )
    progress("timing the ledger right after a write")
    after = _after_write(clients["editor"], store, counter)
    return PageReport(figures, cases, after, rss_mb=rss[0], peak_rss_mb=rss[1])

"""Every URL of the dashboard, walked for every role.

The walk discovers the URL patterns (so a page added later is covered without editing this
file) and builds each one's arguments from objects made through the services, by parameter
name. A parameter it cannot build fails the test, naming it: add it to ARGUMENTS.

What is expected of each URL:
- an anonymous visitor is sent to log in, whatever the method, and nothing is written;
- a signed-in person without the role a view needs gets 403, and a POST writes nothing;
- a person with that role is let in (never 403, never a server error);
- the role a view needs is the one the policy below gives its area, so a write needs the
  area's write role, a read needs viewer, and a view that declares another role fails here.
Django's admin is for admins: everyone else is sent to its login page and writes nothing.
"""

import re

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.db import connection, transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.resolvers import RegexPattern, RoutePattern

from memadmin.accounts.roles import ROLES
from memadmin.composites.reference_services import reference_set_freeze
from memadmin.composites.services import composite_create
from memadmin.interop.models import Workspace
from memadmin.interop.writing.services import context_db_sync
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from tests.upstream_store import build_store, make_row

# Names any visitor may open without signing in.
PUBLIC = {"login", "admin:login"}
# Names any signed-in person may use, whatever their role.
ANY_SIGNED_IN = {"home", "logout", "admin:logout"}
# The role each area's writes need; a view that accepts POST needs it for GET as well.
WRITE_ROLE = {
    "memories": "editor",
    "composites": "editor",
    "headermap": "editor",
    "ledger": "editor",
    "taxonomy": "curator",
    "interop": "editor",  # a sync writes memories; its pack is the default one
    "accounts": "admin",
    "curation": "editor",
    "structure": "editor",  # fragmenting; its pages read as any viewer
    "overview": "editor",  # undoing a change; the service asks more for a criteria change
    "projects": "editor",  # renaming a project
}
# The role reads need where it is not viewer.
READ_ROLE = {"accounts": "admin"}
# Views whose role is not their area's: the area mixes actions of different weight.
VIEW_ROLE = {
    "audit:memory_revert": "editor",
    "audit:criteria_revert": "curator",
    "interop:conflict_resolve": "curator",  # choosing between two people's texts
    "interop:composite_conflict_resolve": "curator",  # alike, for a composite
    "interop:workspace_edit": "curator",  # what every member's agent is given: policy
    "interop:proposals": "curator",  # the agent's proposals queue: a curator's review
    # Publishing composites to a store, and stopping or dropping it, changes what the agent reads.
    "interop:store_composites_publish": "curator",
    "interop:store_composites_unpublish": "curator",
    "interop:store_composites_drop": "curator",
    "taxonomy:facts": "viewer",  # checking pasted historian output reads, never writes
    "memories:bulk_actions": "editor",  # a read, but only of the bulk bar editors have
    "accounts:theme": "viewer",
    # The structure assistant: its suggestions read as any viewer; applying them is a curator's.
    "structure:suggestions": "viewer",
    "structure:suggestions_apply": "curator",  # this browser's colours: anyone signed in chooses their own
}


class _Undo(Exception):
    """Raised to roll back what an allowed request wrote, so the walk's objects stay."""


@pytest.fixture
def world(project, people, tmp_path):
    """Objects for every parameter a URL may take, made through the services."""
    head = memory_create(project=project, category="OPS_RULES", content="Head.", actor="agent")
    member = memory_create(project=project, category="OPS_RULES", content="Step.", actor="agent")
    composite = composite_create(head=head, type="sequence", members=[member], actor="agent")
    reference_set = reference_set_freeze(composite=composite, actor="agent")
    synced = context_db_sync(path=build_store(tmp_path / "context.db", rows=[make_row()]))
    return {
        "upstream_store": synced.store,
        "project": project,
        "memory": head,
        "member": member,
        "composite": composite,
        "reference_set": reference_set,
        "people": people,
    }


# How to build each URL parameter, by name; `pk` depends on the area.
ARGUMENTS = {
    "memory_pk": lambda w: w["memory"].pk,
    "member_pk": lambda w: w["member"].pk,
    "header_pk": lambda w: w["memory"].pk,
    "composite_pk": lambda w: w["composite"].pk,
    "project_pk": lambda w: w["project"].pk,
    "user_pk": lambda w: w["people"]["viewer"].pk,
    "name": lambda w: "OPS_RULES",
    "category": lambda w: "OPS_RULES",
    "site": lambda w: "historian",
    "field": lambda w: "definition",
    "ref": lambda w: w["reference_set"].ref,
    "content_type_id": lambda w: ContentType.objects.get_for_model(Memory).pk,
    "app_label": lambda w: "memories",
    "url": lambda w: "no-such-page/",
    "change_id": lambda w: "00000000-0000-4000-8000-000000000000",
    # Workspaces come only from a store's sync: the row is made as the sync would keep it.
    "workspace_pk": lambda w: (
        Workspace.objects.get_or_create(
            store=w["upstream_store"], upstream_id=1, defaults={"name": "team"}
        )[0].pk
    ),
}
PK_BY_AREA = {
    "memories": lambda w: w["memory"].pk,
    "composites": lambda w: w["composite"].pk,
    "headermap": lambda w: w["memory"].pk,  # a node of the map is a header memory
    "interop": lambda w: w["upstream_store"].pk,
}


def url_patterns(resolver=None, prefix=(), namespace=()):
    """Yield (patterns from the root, namespace, pattern) for every URL pattern."""
    resolver = resolver or get_resolver()
    for entry in resolver.url_patterns:
        if isinstance(entry, URLResolver):
            inner = (*namespace, entry.namespace) if entry.namespace else namespace
            yield from url_patterns(entry, (*prefix, entry.pattern), inner)
        elif isinstance(entry, URLPattern):
            yield (*prefix, entry.pattern), ":".join(namespace), entry


def parameters(pattern) -> list[str]:
    if isinstance(pattern, RoutePattern):
        return list(pattern.converters)
    return list(pattern.regex.groupindex)


def fill(pattern, values: dict) -> str:
    """Return the pattern's piece of the path with its parameters filled in."""
    text = str(pattern)
    if isinstance(pattern, RegexPattern):
        text = re.sub(r"\(\?P<(\w+)>[^)]*\)", lambda m: str(values[m[1]]), text)
        return text.lstrip("^").rstrip("$")
    return re.sub(r"<(?:[^>:]+:)?(\w+)>", lambda m: str(values[m[1]]), text)


def build_path(patterns, area: str, entry, world) -> str:
    """Return a concrete path for the pattern, or fail naming the parameter it cannot build."""
    model_admin = getattr(entry.callback, "model_admin", None)
    values = {}
    for pattern in patterns:
        for name in parameters(pattern):
            if name == "object_id" and model_admin is not None:
                first = model_admin.model._default_manager.order_by("pk").first()
                values[name] = first.pk if first is not None else 0
            elif name == "object_id":
                values[name] = world["memory"].pk
            elif name == "pk" and area in PK_BY_AREA:
                values[name] = PK_BY_AREA[area](world)
            elif name in ARGUMENTS:
                values[name] = ARGUMENTS[name](world)
            else:
                pytest.fail(
                    f"The URL {''.join(map(str, patterns))} ({area}) takes {name!r}, which this "
                    "test cannot build yet: add it to ARGUMENTS (or PK_BY_AREA) in "
                    "tests/test_url_permissions.py so the URL is walked."
                )
    return "/" + "".join(fill(pattern, values) for pattern in patterns)


def expected_role(area: str, full_name: str, accepts_post: bool) -> str | None:
    """Return the role the policy gives this view, or None if the policy has no answer."""
    if full_name in VIEW_ROLE:
        return VIEW_ROLE[full_name]
    if accepts_post:
        return WRITE_ROLE.get(area)
    return READ_ROLE.get(area, "viewer")


def written_counts() -> tuple:
    """Return the row count of every table a request could write, in one query."""
    skip = {"sessions.session", "contenttypes.contenttype", "auth.permission"}
    tables = sorted(
        {m._meta.db_table for m in apps.get_models() if m._meta.label_lower not in skip}
    )
    quote = connection.ops.quote_name
    sql = "SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {quote(t)})" for t in tables)
    with connection.cursor() as cursor:
        cursor.execute(sql)
        return tuple(cursor.fetchone())


def undone(send):
    """Send a request inside a transaction that is then rolled back; return its response."""
    sent = []
    try:
        with transaction.atomic():
            sent.append(send())
            raise _Undo
    except _Undo:
        pass
    return sent[0]


def location(response) -> str:
    return response.headers.get("Location", "")


def test_every_url_lets_in_exactly_the_roles_it_should(world, people):
    """Anonymous visitors log in first; each role may do exactly what its role allows."""
    nobody = get_user_model().objects.create_user(username="nobody", password="x" * 20)
    users = {"nobody": nobody, **{role: people[role] for role in ROLES}}
    clients = {name: Client() for name in users}
    anonymous = Client()
    failures: list[str] = []
    walked = 0

    for name, client in clients.items():
        client.force_login(users[name])

    def request(who: str, method: str, path: str, *, undo: bool = False):
        client = anonymous if who == "anonymous" else clients[who]

        def send():
            return getattr(client, method)(path)

        response = undone(send) if undo else send()
        if who != "anonymous" and "_auth_user_id" not in client.session:
            client.force_login(users[who])  # a walked logout ended the session
        return response

    for patterns, area, entry in url_patterns():
        path = build_path(patterns, area, entry, world)
        name = f"{area}:{entry.name}" if area else entry.name
        label = f"{path} ({name or 'unnamed'})"
        if resolve(path).func is not entry.callback:
            failures.append(f"{label}: the built path resolves to another view")
            continue
        walked += 1

        # Anonymous visitors.
        if name not in PUBLIC:
            for method in ("get", "post"):
                before = written_counts()
                response = request("anonymous", method, path)
                sent_to_login = response.status_code == 302 and (
                    location(response).startswith("/login/")
                    or location(response).startswith("/admin/login/")
                )
                if not sent_to_login:
                    failures.append(
                        f"{label}: anonymous {method.upper()} gave {response.status_code}, "
                        "not a redirect to log in"
                    )
                if written_counts() != before:
                    failures.append(f"{label}: anonymous {method.upper()} wrote something")

        if area == "admin" and name not in ANY_SIGNED_IN:
            failures += check_admin(label, name, path, request)
            continue
        if name in PUBLIC or name in ANY_SIGNED_IN:
            for role in ROLES:
                response = request(role, "get", path)
                if response.status_code in (403,) or response.status_code >= 500:
                    failures.append(f"{label}: {role} GET gave {response.status_code}")
            continue
        failures += check_view(label, name, area, entry, path, request)

    assert walked > 40, f"only {walked} URLs were walked"
    assert not failures, "\n".join(failures)


def check_view(label, name, area, entry, path, request) -> list[str]:
    """Check one dashboard view for every role; return what went wrong."""
    failures = []
    declared = getattr(entry.callback, "required_role", None)
    if declared is None:
        return [f"{label}: the view declares no role (use memadmin.accounts.roles.role_required)"]
    # Method decorators come before the role check: 405 means the method is not served.
    before = written_counts()
    accepts_get = request("nobody", "get", path).status_code != 405
    post_status = request("nobody", "post", path).status_code
    accepts_post = post_status != 405
    if accepts_post and post_status != 403:
        failures.append(f"{label}: a person without a role got {post_status} on POST")
    if written_counts() != before:
        failures.append(f"{label}: a person without a role wrote something")
    needed = expected_role(area, name, accepts_post)
    if needed is None:
        return [
            *failures,
            f"{label}: no policy says which role writes in the {area!r} area: "
            "add it to WRITE_ROLE in tests/test_url_permissions.py",
        ]
    if declared != needed:
        failures.append(f"{label}: the view needs {declared}, the policy says {needed}")
    for role in ROLES:
        allowed = ROLES.index(role) >= ROLES.index(needed)
        if accepts_get:
            status = request(role, "get", path).status_code
            if allowed and (status in (403, 405) or status >= 500):
                failures.append(f"{label}: {role} GET gave {status}, expected to be let in")
            if not allowed and status != 403:
                failures.append(f"{label}: {role} GET gave {status}, expected 403")
        if accepts_post:
            if allowed:
                status = request(role, "post", path, undo=True).status_code
                if status in (403, 405) or status >= 500:
                    failures.append(f"{label}: {role} POST gave {status}, expected to be let in")
            else:
                before = written_counts()
                status = request(role, "post", path).status_code
                if status != 403:
                    failures.append(f"{label}: {role} POST gave {status}, expected 403")
                if written_counts() != before:
                    failures.append(f"{label}: {role} POST wrote something")
    return failures


def check_admin(label, name, path, request) -> list[str]:
    """Check one admin URL: only admins get in; nobody else writes anything."""
    failures = []
    if name in PUBLIC or name in ANY_SIGNED_IN:
        return failures
    # Django's admin lets in staff only, the same way for every other role: the lowest
    # and the highest of them stand for the rest.
    for who in ("nobody", "viewer", "curator"):
        for method in ("get", "post"):
            before = written_counts()
            response = request(who, method, path)
            refused = response.status_code == 403 or (
                response.status_code == 302 and location(response).startswith("/admin/login/")
            )
            if not refused:
                failures.append(f"{label}: {who} {method.upper()} gave {response.status_code}")
            if written_counts() != before:
                failures.append(f"{label}: {who} {method.upper()} wrote something")
    for method in ("get", "post"):
        status = request("admin", method, path, undo=method == "post").status_code
        if status >= 500:
            failures.append(f"{label}: admin {method.upper()} gave {status}")
    return failures

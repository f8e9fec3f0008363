"""The workspace page's edit form: curators only, plain POST, refusals shown with nothing changed."""

import re

import pytest
from django.urls import reverse

from memadmin.interop.models import Workspace
from memadmin.interop.writing.services import context_db_sync
from tests.html_tree import field_error, find, find_all

from ..workspace_edit_store import API, OPS, OUTSIDER, SOLO, WEB, build_edit_store, store_state

pytestmark = pytest.mark.django_db


@pytest.fixture
def team(tmp_path):
    path = build_edit_store(tmp_path / "context.db")
    context_db_sync(path=path)
    return path


def workspace() -> Workspace:
    return Workspace.objects.get(upstream_id=1)


def post_data(row: Workspace, **overrides) -> dict:
    """Return the form as the page fills it, then ``overrides`` (``remove_<identity>`` etc.)."""
    members = list(row.members.order_by("display_name", "project_identity"))
    data = {
        "version": row.digest(),
        "share_categories": list(row.share_categories),
        "members-TOTAL_FORMS": str(len(members)),
        "members-INITIAL_FORMS": str(len(members)),
        "add_project": "",
        "reason": "",
    }
    for index, member in enumerate(members):
        data[f"members-{index}-identity"] = member.project_identity
        data[f"members-{index}-display_name"] = member.display_name
        if overrides.pop(f"remove_{member.project_identity}", False):
            data[f"members-{index}-remove"] = "on"
        name = overrides.pop(f"name_{member.project_identity}", None)
        if name is not None:
            data[f"members-{index}-display_name"] = name
    data.update(overrides)
    return data


def edit_url(row: Workspace) -> str:
    return reverse("interop:workspace_edit", args=[row.pk])


def test_a_curator_sees_the_form_and_a_viewer_does_not(team, client_as):
    """The page offers editing to curators only; editors may not post it."""
    row = workspace()
    page = client_as("curator").get(reverse("interop:workspace", args=[row.pk]))
    form = find(page.content.decode(), "form", method="post", action=edit_url(row))
    assert find_all(form, name="share_categories")
    assert find(form, "input", type="hidden", name="version", value=row.digest())
    assert b"order of their display names" in page.content
    viewer = client_as("viewer").get(reverse("interop:workspace", args=[row.pk])).content.decode()
    assert find_all(viewer, "form", action=edit_url(row)) == []
    assert find_all(viewer, name="share_categories") == []
    assert client_as("editor").post(edit_url(row), post_data(row)).status_code == 403


def test_a_curator_edits_and_the_store_has_it(team, client_as):
    """Shares, a removal, a rename and an addition are saved and written to the store."""
    row = workspace()
    data = post_data(
        row,
        share_categories=["ARCHITECTURE", "NAMING"],
        add_project=SOLO,
        add_display_name="solo",
        reason="pool the naming rules",
        **{f"remove_{OPS}": True, f"name_{WEB}": "web"},
    )
    response = client_as("curator").post(edit_url(row), data, follow=True)
    assert response.status_code == 200
    assert b"saved and written to the store" in response.content
    state = store_state(team)
    assert state["shares"] == '["ARCHITECTURE","NAMING"]'
    assert {identity: name for identity, (name, _) in state["members"].items()} == {
        API: "api <core> & co",
        WEB: "web",
        SOLO: "solo",
    }


@pytest.mark.parametrize(
    ("overrides", "status", "says"),
    [
        ({"share_categories": ["OPS_RULES"]}, 400, "OPS_RULES is not one of the available"),
        ({"add_project": OUTSIDER}, 400, "is not a project of this store outside every"),
        ({"add_project": API}, 400, "is not a project of this store outside every"),
        ({"version": "0" * 32}, 409, "changed since this page was loaded"),
        ({f"name_{API}": "web>ui"}, 400, "is used by both"),
    ],
)
def test_bad_input_is_shown_and_nothing_changes(team, client_as, overrides, status, says):
    """Each bad post is answered on the page, with the reason; store and memadmin unchanged."""
    row = workspace()
    before, digest = store_state(team), row.digest()
    data = post_data(row, **overrides)
    response = client_as("curator").post(edit_url(row), data)
    assert response.status_code == status
    assert says in response.content.decode().replace("&#x27;", "'")
    assert store_state(team) == before
    assert workspace().digest() == digest


def test_a_refused_share_list_is_named_by_its_fieldset(team, client_as):
    """The boxes' fieldset names the error (and the help text) in aria-describedby."""
    row = workspace()
    response = client_as("curator").post(
        edit_url(row), post_data(row, share_categories=["OPS_RULES"])
    )
    assert response.status_code == 400
    assert "OPS_RULES is not one of the available" in field_error(
        response.content.decode(), "id_share_categories"
    )


def test_a_post_with_more_member_rows_than_members_is_out_of_date(team, client_as):
    """A page made before a member left (or a forged row count) changes nothing: the page
    says why and shows the workspace as it is now, one row per member, the reason kept."""
    row = workspace()
    before, digest = store_state(team), row.digest()
    count = row.members.count()
    stale = post_data(row, reason="tidy the names", **{f"name_{API}": "renamed"})
    stale["members-TOTAL_FORMS"] = str(count + 1)
    stale[f"members-{count}-identity"] = "git:" + "f" * 40
    stale[f"members-{count}-display_name"] = "a member since gone"
    forged = {**post_data(row), "members-TOTAL_FORMS": "2147483648"}
    for data in (stale, forged):
        response = client_as("curator").post(edit_url(row), data)
        assert response.status_code == 409
        page = response.content.decode()
        assert "more member rows than the workspace has members" in page
        assert len(re.findall(r'name="members-\d+-identity"', page)) == count
        assert store_state(team) == before
        assert workspace().digest() == digest
    assert "tidy the names" in client_as("curator").post(edit_url(row), stale).content.decode()

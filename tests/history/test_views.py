"""The history pages: the audit log, its exports, versions, compare and revert over HTTP."""

import csv
import io
import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from memadmin.audit.models import AuditEvent
from memadmin.history.selectors import criteria_versions, memory_versions
from memadmin.memories.archive_services import memory_supersede
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_update
from memadmin.taxonomy.selectors import category_by_name
from memadmin.taxonomy.services import criteria_override_save
from tests.html_tree import attribute, field_error, find, find_all, top
from tests.html_tree import text as text_of

pytestmark = pytest.mark.django_db


def body(response) -> str:
    content = b"".join(response.streaming_content) if response.streaming else response.content
    return content.decode()


def written():
    return AuditEvent.objects.count(), Memory.history.count()


@pytest.fixture
def edited_memory(make_memory):
    memory = make_memory("Deploy with just deploy.")
    memory_update(memory=memory, actor="historian", content="Deploy by hand.", reason="broken")
    memory.refresh_from_db()
    return memory


# --- the audit log


def test_log_lists_changes_newest_first(client_as, edited_memory):
    """The log shows every change with who made it and why."""
    response = client_as("viewer").get(reverse("audit:index"))
    page = response.context["page"]
    assert [event.action for event in page.object_list][:2] == ["edited", "created"]
    assert "broken" in body(response)


def test_log_filters_by_actor_action_category_and_project(client_as, edited_memory, mc_project):
    """Each filter narrows the log; together they combine."""
    client = client_as("viewer")
    by_actor = client.get(reverse("audit:index"), {"actor": "historian"}).context["page"]
    assert {e.actor_label for e in by_actor.object_list} == {"historian"}
    by_action = client.get(reverse("audit:index"), {"action": "pack_installed"}).context["page"]
    assert by_action.paginator.count == 2
    by_project = client.get(
        reverse("audit:index"), {"project": mc_project.pk, "action": "pack_installed"}
    ).context["page"]
    assert [e.project_id for e in by_project.object_list] == [mc_project.pk]
    by_category = client.get(reverse("audit:index"), {"category": "OPS_RULES"}).context["page"]
    assert {e.category for e in by_category.object_list} == {"OPS_RULES"}


def test_log_filters_by_time_range(client_as, edited_memory):
    """A range that ends before today's changes shows none of them."""
    client = client_as("viewer")
    today = timezone.localdate()
    within = client.get(reverse("audit:index"), {"since": today.isoformat()}).context["page"]
    assert within.paginator.count == AuditEvent.objects.count()
    yesterday = (today - timedelta(days=1)).isoformat()
    before = client.get(reverse("audit:index"), {"until": yesterday}).context["page"]
    assert before.paginator.count == 0


def test_a_backwards_range_is_a_bad_request(client_as, edited_memory):
    """A range that starts after it ends is refused with 400 and an explanation."""
    response = client_as("viewer").get(
        reverse("audit:index"), {"since": "2026-02-02", "until": "2026-01-01"}
    )
    assert response.status_code == 400
    assert "starts after it ends" in body(response)


def test_a_date_that_is_not_one_is_named_at_its_filter(client_as, edited_memory):
    """A filter the form refuses is named in the log section under the id its box names."""
    response = client_as("viewer").get(reverse("audit:index"), {"since": "soon"})
    assert response.status_code == 400
    assert field_error(body(response), "id_since") == "Enter a valid date."


def test_log_is_paginated(client_as, make_memory):
    """Fifty changes to a page; the next page holds the rest."""
    for n in range(55):
        make_memory(f"Memory number {n}.")
    client = client_as("viewer")
    first = client.get(reverse("audit:index")).context["page"]
    assert len(first.object_list) == 50
    second = client.get(reverse("audit:index"), {"page": 2}).context["page"]
    assert len(second.object_list) == AuditEvent.objects.count() - 50


def test_htmx_gets_only_the_log_section(client_as, edited_memory):
    """An htmx request receives the log section, not the whole page."""
    response = client_as("viewer").get(reverse("audit:index"), headers={"HX-Request": "true"})
    (section,) = top(body(response))  # the section alone, nothing around it
    assert (section.name, attribute(section, "id")) == ("section", "log-section")
    # Its paging links are plain links that hx-boost swaps into this section only.
    assert (attribute(section, "hx-boost"), attribute(section, "hx-target")) == (
        "true",
        "#log-section",
    )


def test_csv_export_follows_the_filters(client_as, edited_memory):
    """The CSV holds a header and one row per matching event."""
    response = client_as("viewer").get(reverse("audit:export_csv"), {"actor": "historian"})
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(body(response))))
    assert [(r["actor"], r["action"], r["reason"]) for r in rows] == [
        ("historian", "edited", "broken")
    ]
    assert json.loads(rows[0]["changes"])["content"] == [
        "Deploy with just deploy.",
        "Deploy by hand.",
    ]


def test_csv_export_defuses_spreadsheet_formulas(client_as, make_memory):
    """A cell that a spreadsheet would run as a formula is exported with an apostrophe."""
    make_memory("x", reason='=HYPERLINK("http://evil")')
    rows = list(
        csv.DictReader(io.StringIO(body(client_as("viewer").get(reverse("audit:export_csv")))))
    )
    assert rows[0]["reason"] == '\'=HYPERLINK("http://evil")'


def test_json_export_follows_the_filters(client_as, edited_memory):
    """The JSON names its filters and lists the matching events."""
    response = client_as("viewer").get(reverse("audit:export_json"), {"action": "edited"})
    data = json.loads(body(response))
    assert data["filters"] == {"action": "edited"}
    assert [e["actor"] for e in data["events"]] == ["historian"]
    assert data["events"][0]["project"] == edited_memory.project.identity


def test_export_with_bad_filters_is_a_bad_request(client_as, edited_memory):
    """An export whose filters do not validate is refused with 400."""
    response = client_as("viewer").get(reverse("audit:export_json"), {"since": "yesterday"})
    assert response.status_code == 400


# --- versions, compare, revert of a memory


def test_memory_history_lists_versions_and_the_full_timeline(client_as, edited_memory):
    """The page shows both versions, newest first, and offers a revert to editors."""
    response = client_as("editor").get(reverse("audit:memory_history", args=[edited_memory.pk]))
    assert [v.number for v in response.context["versions"]] == [2, 1]
    assert "Revert to version 1" in body(response)


def test_a_revert_that_would_be_refused_is_not_offered_and_says_why(
    client_as, edited_memory, make_memory
):
    """Back at version 1's state, version 1 offers no revert; a superseded memory offers none."""
    first = memory_versions(edited_memory.pk)[0]
    memory_update(memory=edited_memory, actor="agent", content=first.content)
    editor = client_as("editor")
    page = body(editor.get(reverse("audit:memory_history", args=[edited_memory.pk])))
    assert "Revert to version 1" not in page
    assert "This memory already matches version 1." in page
    assert "Revert to version 2" in page
    newer = make_memory("Deploy with the new pipeline.")
    memory_supersede(memory=edited_memory, successor=newer, actor="agent")
    page = body(editor.get(reverse("audit:memory_history", args=[edited_memory.pk])))
    assert "Revert to version 2" not in page
    assert f"superseded by #{newer.pk}" in page


def test_viewers_are_not_offered_a_revert(client_as, edited_memory):
    """A viewer sees the versions but no revert button."""
    response = client_as("viewer").get(reverse("audit:memory_history", args=[edited_memory.pk]))
    assert "Revert to version" not in body(response)


def marked(html, side: str, tag: str) -> list:
    """The words marked `tag` (del, ins) in the `side` (old, new) cells of the diff tables."""
    return [
        mark
        for table in find_all(html, "table", class_="side-by-side-diff")
        for cell in find_all(table, "td", class_=f"line {side}")
        for mark in find_all(cell, tag)
    ]


def test_compare_shows_two_versions_side_by_side(client_as, edited_memory):
    """The compare page pairs the lines and marks the changed words."""
    first, second = memory_versions(edited_memory.pk)
    response = client_as("viewer").get(
        reverse("audit:memory_compare", args=[edited_memory.pk]),
        {"a": second.history_id, "b": first.history_id},
    )
    assert response.status_code == 200
    assert (response.context["old"].number, response.context["new"].number) == (1, 2)
    text = body(response)
    table = find(text, "table", class_="side-by-side-diff")
    assert "with just deploy" in [text_of(gone) for gone in marked(table, "old", "del")]
    assert "by hand" in [text_of(added) for added in marked(table, "new", "ins")]


def test_compare_with_an_unknown_version_is_not_found(client_as, edited_memory):
    """A version id that does not exist is 404."""
    first = memory_versions(edited_memory.pk)[0]
    response = client_as("viewer").get(
        reverse("audit:memory_compare", args=[edited_memory.pk]),
        {"a": first.history_id, "b": 999_999},
    )
    assert response.status_code == 404


def test_compare_with_a_version_of_another_memory_is_a_bad_request(
    client_as, edited_memory, make_memory
):
    """A version of another memory is 400."""
    other = make_memory("Another.")
    response = client_as("viewer").get(
        reverse("audit:memory_compare", args=[edited_memory.pk]),
        {
            "a": memory_versions(edited_memory.pk)[0].history_id,
            "b": memory_versions(other.pk)[0].history_id,
        },
    )
    assert response.status_code == 400


def test_editor_reverts_over_http(client_as, edited_memory):
    """A revert redirects to the memory, which holds the old text as a new version."""
    first = memory_versions(edited_memory.pk)[0]
    response = client_as("editor").post(
        reverse("audit:memory_revert", args=[edited_memory.pk]),
        {
            "version": first.history_id,
            "expected_version": edited_memory.updated_at,
            "reason": "hand deploys break",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("memories:detail", args=[edited_memory.pk])
    edited_memory.refresh_from_db()
    assert edited_memory.content == "Deploy with just deploy."
    assert len(memory_versions(edited_memory.pk)) == 3


def test_viewer_cannot_revert(client_as, edited_memory):
    """A viewer posting a revert gets 403 and nothing is written."""
    before = written()
    response = client_as("viewer").post(
        reverse("audit:memory_revert", args=[edited_memory.pk]),
        {"version": memory_versions(edited_memory.pk)[0].history_id},
    )
    assert response.status_code == 403
    assert written() == before


def test_revert_to_another_memorys_version_is_a_bad_request(client_as, edited_memory, make_memory):
    """Naming a version of another memory is 400, and nothing is written."""
    other = make_memory("Another.")
    before = written()
    response = client_as("editor").post(
        reverse("audit:memory_revert", args=[edited_memory.pk]),
        {"version": memory_versions(other.pk)[0].history_id},
    )
    assert response.status_code == 400
    assert written() == before


def test_revert_to_an_unknown_version_is_not_found(client_as, edited_memory):
    """Naming a version that does not exist is 404, and nothing is written."""
    before = written()
    response = client_as("editor").post(
        reverse("audit:memory_revert", args=[edited_memory.pk]), {"version": 999_999}
    )
    assert response.status_code == 404
    assert written() == before


def test_a_refused_revert_shows_the_reason(client_as, edited_memory, make_memory):
    """A revert that would duplicate another memory is refused with 400 and the reason."""
    other = make_memory("deploy with JUST deploy.")
    before = written()
    response = client_as("editor").post(
        reverse("audit:memory_revert", args=[edited_memory.pk]),
        {
            "version": memory_versions(edited_memory.pk)[0].history_id,
            "expected_version": edited_memory.updated_at,
        },
    )
    assert response.status_code == 400
    assert f"duplicate of memory #{other.display_id}" in body(response)
    assert written() == before


def test_forged_revert_without_a_csrf_token_is_forbidden(client, people, edited_memory):
    """A POST that lacks the CSRF token is refused with 403, even from an editor."""
    from django.test import Client

    forged = Client(enforce_csrf_checks=True)
    forged.force_login(people["editor"])
    before = written()
    response = forged.post(
        reverse("audit:memory_revert", args=[edited_memory.pk]),
        {"version": memory_versions(edited_memory.pk)[0].history_id},
    )
    assert response.status_code == 403
    assert written() == before


def test_htmx_post_with_the_token_header_passes_csrf(people, edited_memory):
    """The X-CSRFToken header that base.html gives every htmx request is accepted."""
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(people["editor"])
    page = browser.get(reverse("audit:memory_history", args=[edited_memory.pk]))
    token = page.cookies["csrftoken"].value
    response = browser.post(
        reverse("audit:memory_revert", args=[edited_memory.pk]),
        {
            "version": memory_versions(edited_memory.pk)[0].history_id,
            "expected_version": edited_memory.updated_at,
        },
        headers={"X-CSRFToken": token, "HX-Request": "true"},
    )
    assert response.status_code == 302


# --- criteria


@pytest.fixture
def overridden(project):
    category = category_by_name(project, "OPS_RULES")
    return criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": "Our <b>own</b> wording."},
        actor="system",
    )


def test_criteria_history_and_compare(client_as, project, overridden):
    """The versions of a category's criteria are listed and compared field by field."""
    client = client_as("viewer")
    page = client.get(reverse("audit:criteria_history", args=[project.pk, "OPS_RULES"]))
    assert [v.number for v in page.context["versions"]] == [2, 1]
    first, second = criteria_versions(project.pk, "OPS_RULES")
    compare = client.get(
        reverse("audit:criteria_compare", args=[project.pk, "OPS_RULES"]),
        {"a": first.history_id, "b": second.history_id},
    )
    text = body(compare)
    added = [text_of(mark) for mark in marked(text, "new", "ins")]
    assert any(words.startswith("Our <b>own</b> wording") for words in added)


def test_curator_reverts_criteria_and_editor_cannot(client_as, project, overridden):
    """Criteria reverts need the curator role."""
    first = criteria_versions(project.pk, "OPS_RULES")[0]
    url = reverse("audit:criteria_revert", args=[project.pk, "OPS_RULES"])
    posted = {"version": first.history_id, "expected_version": overridden.revision}
    assert client_as("editor").post(url, posted).status_code == 403
    response = client_as("curator").post(url, posted)
    assert response.status_code == 302
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_criteria_already_in_force_are_not_offered_as_a_revert(client_as, project, overridden):
    """Back to the pack default, version 1 (the default) offers no revert; version 2 does."""
    criteria_override_save(
        category=overridden, criteria=overridden.default_criteria, actor="system"
    )
    url = reverse("audit:criteria_history", args=[project.pk, "OPS_RULES"])
    page = body(client_as("curator").get(url))
    assert "Revert to version 1" not in page
    assert "The criteria of version 1 are the ones in force already." in page
    assert "Revert to version 2" in page


def test_criteria_revert_to_another_categorys_version_is_a_bad_request(
    client_as, project, overridden
):
    """A version of RESEARCH cannot be reverted onto OPS_RULES."""
    research = criteria_versions(project.pk, "RESEARCH")[0]
    before = AuditEvent.objects.count()
    response = client_as("curator").post(
        reverse("audit:criteria_revert", args=[project.pk, "OPS_RULES"]),
        {"version": research.history_id},
    )
    assert response.status_code == 400
    assert AuditEvent.objects.count() == before


def test_history_of_a_category_that_never_existed_is_not_found(client_as, project):
    """A category name the project never had is 404."""
    response = client_as("viewer").get(reverse("audit:criteria_history", args=[project.pk, "NOPE"]))
    assert response.status_code == 404


def test_a_filter_on_a_change_that_never_happened_is_an_empty_log(client_as, edited_memory):
    """Filtering on a kind of change the log does not hold yet shows no change, not an error."""
    response = client_as("viewer").get(reverse("audit:index"), {"action": "role_changed"})
    assert response.status_code == 200
    assert response.context["page"].paginator.count == 0


@pytest.mark.parametrize("name", ["x%00y", "ops_rules", "A" * 41, "%C2%B2"])
@pytest.mark.parametrize("page", ["", "compare/?a=1&b=2"])
def test_a_category_name_no_pack_can_hold_is_not_found(client_as, project, name, page):
    """A name no pack can spell (a NUL byte, lower case, too long) is 404, never a 500."""
    response = client_as("viewer").get(f"/history/criteria/{project.pk}/{name}/{page}")
    assert response.status_code == 404


@pytest.mark.parametrize("name", ["x%00y", "ops_rules"])
def test_a_revert_of_a_category_name_no_pack_can_hold_is_not_found(client_as, project, name):
    """Posting a revert for such a name is 404 and writes nothing."""
    before = AuditEvent.objects.count()
    response = client_as("curator").post(
        f"/history/criteria/{project.pk}/{name}/revert/", {"version": "1"}
    )
    assert response.status_code == 404
    assert AuditEvent.objects.count() == before


# --- a revert over a newer save


def revert_form_of(page: str, version_id: int) -> dict:
    """Return the fields of the page's revert form for that version, as a browser posts them."""
    for form in find_all(page, "form", method="post"):
        fields = {
            attribute(field, "name"): attribute(field, "value") or ""  # as a browser sends it
            for field in find_all(form, "input", type="hidden")
        }
        if fields.get("version") == str(version_id):
            return {k: v for k, v in fields.items() if k != "csrfmiddlewaretoken"}
    raise AssertionError(f"no revert form for version {version_id}")


def test_a_memory_revert_over_a_newer_save_is_refused(client_as, edited_memory):
    """The page was loaded, then someone saved: the revert is 409 and their text stays."""
    client = client_as("editor")
    first = memory_versions(edited_memory.pk)[0]
    page = body(client.get(reverse("audit:memory_history", args=[edited_memory.pk])))
    posted = revert_form_of(page, first.history_id)
    memory_update(memory=edited_memory, actor="agent", content="Deploy on Fridays only.")
    before = written()
    response = client.post(
        reverse("audit:memory_revert", args=[edited_memory.pk]), {**posted, "reason": "why"}
    )
    assert response.status_code == 409
    assert "saved this memory while you were editing it" in body(response)
    assert written() == before
    edited_memory.refresh_from_db()
    assert edited_memory.content == "Deploy on Fridays only."
    # The page shown again carries the version now stored and the reason typed: reverting
    # again is a choice made over the newer text.
    again = revert_form_of(body(response), first.history_id)
    assert again["expected_version"] == str(edited_memory.updated_at)
    response = client.post(
        reverse("audit:memory_revert", args=[edited_memory.pk]), {**again, "reason": "why"}
    )
    assert response.status_code == 302
    edited_memory.refresh_from_db()
    assert edited_memory.content == "Deploy with just deploy."


def test_a_memory_revert_that_says_no_version_is_refused(client_as, edited_memory):
    """A revert without the version it was made over is refused like a stale one."""
    first = memory_versions(edited_memory.pk)[0]
    before = written()
    response = client_as("editor").post(
        reverse("audit:memory_revert", args=[edited_memory.pk]), {"version": first.history_id}
    )
    assert response.status_code == 409
    assert "did not say which version" in body(response)
    assert written() == before


def test_a_criteria_revert_over_a_newer_save_is_refused(client_as, project, overridden):
    """The criteria were saved again after the history page was loaded: 409, theirs stay."""
    client = client_as("curator")
    first = criteria_versions(project.pk, "OPS_RULES")[0]
    url = reverse("audit:criteria_history", args=[project.pk, "OPS_RULES"])
    posted = revert_form_of(body(client.get(url)), first.history_id)
    newer = criteria_override_save(
        category=overridden,
        criteria={**overridden.effective_criteria, "definition": "Newer wording."},
        actor="system",
    )
    before = AuditEvent.objects.count()
    revert = reverse("audit:criteria_revert", args=[project.pk, "OPS_RULES"])
    response = client.post(revert, posted)
    assert response.status_code == 409
    assert "Someone else saved these criteria" in body(response)
    assert AuditEvent.objects.count() == before
    assert category_by_name(project, "OPS_RULES").effective_criteria["definition"] == (
        "Newer wording."
    )
    again = revert_form_of(body(response), first.history_id)
    assert again["expected_version"] == str(newer.revision)
    assert client.post(revert, again).status_code == 302
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_a_criteria_revert_that_says_no_version_is_refused(client_as, project, overridden):
    """A criteria revert without the revision it was made over changes nothing."""
    first = criteria_versions(project.pk, "OPS_RULES")[0]
    before = AuditEvent.objects.count()
    response = client_as("curator").post(
        reverse("audit:criteria_revert", args=[project.pk, "OPS_RULES"]),
        {"version": first.history_id},
    )
    assert response.status_code == 409
    assert "did not say which version of the criteria" in body(response)
    assert AuditEvent.objects.count() == before
    assert category_by_name(project, "OPS_RULES").is_overridden


def test_the_log_filter_names_categories_as_they_are_spelled(client_as, make_memory):
    """The category filter offers CONFIG_VALUES, not "CONFIG VALUES"; kinds read in words."""
    make_memory("Pool size 10.")
    page = body(client_as("viewer").get(reverse("audit:index")))
    categories = [text_of(o) for o in find_all(find(page, "select", name="category"), "option")]
    assert "OPS_RULES" in categories and "OPS RULES" not in categories
    actions = [text_of(o) for o in find_all(find(page, "select", name="action"), "option")]
    assert "created" in actions


def test_compare_says_flags_in_words(client_as, make_memory):
    """A flag reads yes or no on the compare page, never True or False."""
    memory = make_memory("Shared rule.")
    memory_update(memory=memory, actor="agent", shareable=True)
    first, second = memory_versions(memory.pk)
    page = body(
        client_as("viewer").get(
            reverse("audit:memory_compare", args=[memory.pk]),
            {"a": first.history_id, "b": second.history_id},
        )
    )
    (row,) = [r for r in find_all(page, "tr") if text_of(r).startswith("Shareable")]
    assert [text_of(cell) for cell in find_all(row, "td")] == ["no", "yes"]


@pytest.mark.parametrize("typed", ["{id}", "#{id}", " #{id} "])
def test_the_log_filters_by_memory(client_as, make_memory, typed):
    """Typing a memory's id (as pages show it) lists that memory's changes only."""
    wanted, other = make_memory("Deploy Tuesdays."), make_memory("Deploy Fridays.")
    memory_update(memory=wanted, actor="agent", content="Deploy Wednesdays.")
    memory_update(memory=other, actor="agent", content="Deploy Mondays.")
    response = client_as("viewer").get(
        reverse("audit:index"), {"memory": typed.format(id=wanted.display_id)}
    )
    events = list(response.context["page"].object_list)
    assert [e.action for e in events] == ["edited", "created"]
    assert {e.object_id for e in events} == {str(wanted.pk)}


def test_a_memory_filter_that_is_no_id_is_named(client_as, make_memory):
    """A filter that names no memory says so beside its field; the log is not narrowed."""
    make_memory("Deploy Tuesdays.")
    response = client_as("viewer").get(reverse("audit:index"), {"memory": "deploy"})
    assert "Name a memory by its id" in body(response)

"""Criteria pages: the overview, the editor with and without htmx, roles, bad input."""

import pytest
from django.urls import reverse

from memadmin.core.packs import DEFINITION_MAX
from memadmin.memories.services import memory_create
from memadmin.taxonomy.models import Category
from memadmin.taxonomy.selectors import category_by_name, current_surface_hash
from memadmin.taxonomy.services import criteria_override_save
from tests.html_tree import (
    Node,
    attribute,
    field_error,
    find,
    find_all,
    links,
    parse,
    submitted,
    text,
    top,
)

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


def page_url(project, name="OPS_RULES"):
    return reverse("taxonomy:category", args=[project.pk, name])


def field_url(project, field, name="OPS_RULES"):
    return reverse("taxonomy:field_save", args=[project.pk, name, field])


def boxes(field, items):
    """Return the post of a list field's formset: its management form and one box per item."""
    data = {f"{field}-TOTAL_FORMS": len(items), f"{field}-INITIAL_FORMS": 0}
    for i, item in enumerate(items):
        if isinstance(item, dict):
            data |= {f"{field}-{i}-{part}": text for part, text in item.items()}
        else:
            data[f"{field}-{i}-text"] = item
    return data


def field_post(category, field, value, revision=None):
    """Return the post of one in-place field form holding `value`."""
    data = {"revision": revision or category.revision}
    if isinstance(value, list):
        data |= boxes(field, value)
    else:
        data[field] = value
    return data


def full_post(category, **changes):
    """Return the post of the full criteria form: the effective criteria with changes."""
    criteria = {**category.effective_criteria, **changes}
    data = {
        "revision": category.revision,
        "test_question": criteria["test_question"],
        "definition": criteria["definition"],
        "hard_stop": criteria.get("hard_stop", ""),
        "reason": "",
    }
    for name in ("positive_examples", "exclusions", "negative_examples"):
        data |= boxes(name, criteria[name])
    return data


def visible_text(html: str | Node) -> str:
    """Return the text a sighted reader sees: none inside a `visually-hidden` element."""
    parts = []

    def walk(node):
        for child in node.children:
            if isinstance(child, str):
                parts.append(child)
            elif "visually-hidden" not in (attribute(child, "class") or "").split():
                walk(child)

    walk(parse(html) if isinstance(html, str) else html)
    return " ".join(parts)


def ids_of(fragment: str) -> list[tuple[str, str | None]]:
    """The tag and id of each top element of an htmx answer."""
    return [(element.name, attribute(element, "id")) for element in top(fragment)]


def conflict_box(page: str) -> Node:
    """The alert that says a save, clear or keep was refused, both texts set side by side."""
    return find(page, "div", class_="conflict", role="alert")


# --- the overview


def test_overview_lists_the_categories_with_markers_and_the_hash(project, client_as):
    """The overview shows every category, the overridden and moved markers, and the hash."""
    criteria_override_save(
        category=category_by_name(project, "RESEARCH"),
        criteria={**category_by_name(project, "RESEARCH").effective_criteria, "hard_stop": "X."},
        actor="system",
    )
    Category.objects.filter(project=project, name="RESEARCH").update(default_moved=True)
    memory_create(project=project, category="OPS_RULES", content="Rule.", actor="agent")
    response = client_as("viewer").get(reverse("taxonomy:index"), {"project": project.pk})
    page = response.content.decode()
    assert response.status_code == 200
    table = find(page, "table", class_="data-table")
    named = dict(links(table))
    for name in ("OPS_RULES", "ENV_STATE", "CONFIG_VALUES", "INCIDENTS", "RESEARCH"):
        assert named[name] == page_url(project, name)
    overridden = [
        text(find(row, "a"))
        for row in find_all(find(table, "tbody"), "tr")
        if find_all(row, "span", class_="badge overridden")
    ]
    assert overridden == ["RESEARCH"] and len(find_all(page, class_="badge overridden")) == 1
    assert "default moved" in page
    assert current_surface_hash(project)[:12] in page
    assert "Edit" not in page  # no screen adds, renames or deletes names; viewers edit nothing


def test_overview_defaults_to_the_first_project_and_swaps_its_section(
    project, mc_project, client_as
):
    """Without a choice the first project is shown; htmx gets the overview section only."""
    client = client_as("viewer")
    response = client.get(reverse("taxonomy:index"))
    assert "magic-context" in response.content.decode() or "ops-six" in response.content.decode()
    fragment = client.get(reverse("taxonomy:index"), {"project": mc_project.pk}, **HTMX)
    section = fragment.content.decode()
    assert ids_of(section) == [("div", "overview-section")]
    assert "PROJECT_RULES" in section
    assert "legacy → PROJECT_RULES" in section


# --- the category page


def test_category_page_shows_criteria_hash_and_historian_preview(project, client_as):
    """A viewer sees the criteria in force, the surface hash and the historian text, no edits."""
    category = category_by_name(project, "OPS_RULES")
    response = client_as("viewer").get(page_url(project))
    page = response.content.decode()
    assert response.status_code == 200
    assert category.effective_criteria["test_question"] in page
    assert find(page, "pre", id="historian-preview")
    assert current_surface_hash(project)[:12] in page
    assert "edit-field" not in page
    assert "Clear override" not in page


def test_curator_sees_an_edit_link_per_field_that_works_without_javascript(project, client_as):
    """Each field has an Edit link with a real href that opens that field's form."""
    client = client_as("curator")
    page = client.get(page_url(project)).content.decode()
    edits = find_all(page, "a", class_="button secondary edit-field")
    assert len(edits) == 6 and all("?edit=" in attribute(edit, "href") for edit in edits)
    opened = client.get(page_url(project), {"edit": "definition"}).content.decode()
    form = find(opened, "form", method="post", action=field_url(project, "definition"))
    assert find(form, "input", name="revision")


def test_htmx_edit_link_gets_only_the_field_form(project, client_as):
    """With htmx the Edit link swaps in just the field's form; Cancel swaps the text back."""
    client = client_as("curator")
    form = client.get(page_url(project), {"edit": "exclusions"}, **HTMX).content.decode()
    assert ids_of(form) == [("section", "field-exclusions")]
    (section,) = top(form)
    assert "criteria-field" in attribute(section, "class").split()
    editor = find(section, "form", method="post", action=field_url(project, "exclusions"))
    assert find(editor, name="exclusions-0-text")
    assert find(editor, "input", type="hidden", name="exclusions-TOTAL_FORMS")  # management form
    assert "historian-preview" not in form
    shown = client.get(page_url(project), {"field": "exclusions"}, **HTMX).content.decode()
    assert ids_of(shown) == [("section", "field-exclusions")] and find_all(shown, "form") == []


def test_in_place_save_with_htmx_returns_the_editor_with_new_preview_and_hash(project, client_as):
    """Saving one field returns the editor section: new text, new preview, new hash."""
    category = category_by_name(project, "OPS_RULES")
    before = current_surface_hash(project)
    response = client_as("curator").post(
        field_url(project, "definition"),
        field_post(category, "definition", "Only standing operating rules."),
        **HTMX,
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert ids_of(body)[0] == ("div", "editor-section")
    after = current_surface_hash(project)
    assert after != before
    assert after[:12] in body
    assert body.count("Only standing operating rules.") >= 2  # the field and the preview
    assert "Overridden" in body
    difference = find(find(body, "section", id="field-definition"), "p", class_="diff")
    assert find_all(difference, "del") and find_all(difference, "ins")  # from the pack default


def test_plain_save_redirects_to_the_page(project, client_as):
    """Without htmx a save redirects back to the category page."""
    category = category_by_name(project, "OPS_RULES")
    response = client_as("curator").post(
        field_url(project, "test_question"),
        field_post(category, "test_question", "Is it a standing rule?"),
    )
    assert response.status_code == 302
    assert response["Location"] == page_url(project)
    assert category_by_name(project, "OPS_RULES").effective_criteria["test_question"] == (
        "Is it a standing rule?"
    )


def test_list_field_boxes_add_and_remove_items(project, client_as):
    """Emptied boxes remove items; filled extra boxes add them."""
    category = category_by_name(project, "OPS_RULES")
    client_as("curator").post(
        field_url(project, "positive_examples"),
        field_post(category, "positive_examples", ["First.", "", "Third."]),
    )
    stored = category_by_name(project, "OPS_RULES").effective_criteria
    assert stored["positive_examples"] == ["First.", "Third."]


def test_negative_examples_need_a_reason(project, client_as):
    """A negative example without its reason is refused beside the box."""
    category = category_by_name(project, "OPS_RULES")
    data = {
        "revision": category.revision,
        **boxes("negative_examples", [{"example": "Deployed once.", "reason": ""}]),
    }
    response = client_as("curator").post(field_url(project, "negative_examples"), data)
    assert response.status_code == 400
    html = response.content.decode()
    box = find(html, name="negative_examples-0-reason").attributes["id"]
    assert field_error(html, box) == "Say why this does not belong here."
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_the_full_form_names_a_too_long_reason_at_its_box(project, client_as):
    """The edit page's reason over 500 characters is refused beside it; nothing is saved."""
    category = category_by_name(project, "OPS_RULES")
    data = {**full_post(category, definition="Changed."), "reason": "r" * 501}
    response = client_as("curator").post(
        reverse("taxonomy:edit", args=[project.pk, "OPS_RULES"]), data
    )
    assert response.status_code == 400
    assert "Keep the reason to 500 characters at most." in field_error(
        response.content.decode(), "id_reason"
    )
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_full_form_saves_every_field_with_a_reason(project, client_as):
    """The plain form edits all fields at once and keeps the reason."""
    category = category_by_name(project, "ENV_STATE")
    data = full_post(category, definition="The machines as they are.", hard_stop="No secrets.")
    data["reason"] = "Tighter wording"
    response = client_as("curator").post(
        reverse("taxonomy:edit", args=[project.pk, "ENV_STATE"]), data
    )
    assert response.status_code == 302
    stored = category_by_name(project, "ENV_STATE")
    assert stored.effective_criteria["definition"] == "The machines as they are."
    assert stored.effective_criteria["hard_stop"] == "No secrets."
    assert (
        stored.effective_criteria["positive_examples"]
        == (category.default_criteria["positive_examples"])
    )


def test_a_save_that_changes_nothing_keeps_the_hash(project, client_as):
    """Submitting the form unchanged changes neither the criteria nor the hash."""
    category = category_by_name(project, "ENV_STATE")
    before = current_surface_hash(project)
    response = client_as("curator").post(
        reverse("taxonomy:edit", args=[project.pk, "ENV_STATE"]), full_post(category)
    )
    assert response.status_code == 302
    stored = category_by_name(project, "ENV_STATE")
    assert (stored.revision, stored.is_overridden) == (category.revision, False)
    assert current_surface_hash(project) == before


def test_concurrent_edit_is_refused_with_both_texts_side_by_side(project, client_as):
    """The second of two edits from one revision is refused; both texts are on the page."""
    category = category_by_name(project, "INCIDENTS")
    old_revision = category.revision
    client = client_as("curator")
    client.post(
        field_url(project, "definition", "INCIDENTS"),
        field_post(category, "definition", "Alice's definition."),
    )
    response = client.post(
        field_url(project, "definition", "INCIDENTS"),
        field_post(category, "definition", "Bob's definition.", revision=old_revision),
    )
    page = response.content.decode()
    assert response.status_code == 409
    assert "Someone else saved these criteria" in page
    assert "Their version (in force)" in page and "Your version" in page
    assert "Alice&#x27;s definition." in page
    assert "Bob&#x27;s definition." in page  # in the comparison and still in the box
    form = find(page, "form", method="post", action=field_url(project, "definition", "INCIDENTS"))
    assert find(form, "input", name="revision", value=str(old_revision + 1))
    assert dict(submitted(form))["definition"] == "Bob's definition."  # still in the box
    stored = category_by_name(project, "INCIDENTS")
    assert stored.effective_criteria["definition"] == "Alice's definition."


def test_concurrent_edit_in_the_full_form_is_refused_too(project, client_as):
    """The plain form refuses a stale save the same way."""
    category = category_by_name(project, "INCIDENTS")
    client = client_as("curator")
    url = reverse("taxonomy:edit", args=[project.pk, "INCIDENTS"])
    client.post(url, full_post(category, definition="First."))
    response = client.post(url, full_post(category, definition="Second."))
    assert response.status_code == 409
    assert "Their version (in force)" in response.content.decode()
    assert category_by_name(project, "INCIDENTS").effective_criteria["definition"] == "First."


@pytest.mark.parametrize(
    ("way", "status"), [("in place", 409), ("in place with htmx", 200), ("full form", 409)]
)
def test_a_refused_concurrent_edit_says_so_once_and_keeps_both_texts(
    project, client_as, way, status
):
    """The refusal is said once; their text and the refused text are both on the page."""
    category = category_by_name(project, "INCIDENTS")
    criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": "Alice's definition."},
        actor="system",
    )
    client = client_as("curator")
    if way == "full form":
        response = client.post(
            reverse("taxonomy:edit", args=[project.pk, "INCIDENTS"]),
            full_post(category, definition="Bob's definition."),
        )
    else:
        response = client.post(
            field_url(project, "definition", "INCIDENTS"),
            field_post(category, "definition", "Bob's definition."),
            **(HTMX if way == "in place with htmx" else {}),
        )
    page = response.content.decode()
    assert response.status_code == status
    assert page.count("Someone else saved") == 1
    assert page.lower().count("nothing was overwritten") == 1
    assert "Their version (in force)" in page and "Alice&#x27;s definition." in page
    assert page.count("Bob&#x27;s definition.") == 2  # in the comparison and still in the box
    assert "Someone else saved" in text(conflict_box(page))
    mine = [text(row) for row in find_all(find(conflict_box(page), "tbody"), "tr")]
    assert any(row.endswith("Bob's definition.") for row in mine)  # the comparison's last column
    posting = [
        form for form in find_all(page, "form", method="post") if find_all(form, name="definition")
    ]
    assert [dict(submitted(form))["definition"] for form in posting] == ["Bob's definition."]
    assert category_by_name(project, "INCIDENTS").effective_criteria["definition"] == (
        "Alice's definition."
    )


def test_the_in_place_editor_names_its_field_once(project, client_as):
    """The field's heading names it; the legend of its boxes is for screen readers only."""
    client = client_as("curator")
    for response in (
        client.get(page_url(project), {"edit": "definition"}, **HTMX),
        client.get(page_url(project), {"edit": "definition"}),
    ):
        field = find(response.content.decode(), "section", id="field-definition")
        assert find(field, "legend") and find(field, name="definition")
        assert visible_text(field).count("Definition") == 1
    full_form = client.get(reverse("taxonomy:edit", args=[project.pk, "OPS_RULES"]))
    assert visible_text(full_form.content.decode()).count("Definition") == 1  # its legend


def test_clear_override_restores_the_pack_text(project, client_as):
    """Clear override returns the category to its pack default."""
    category = category_by_name(project, "RESEARCH")
    client = client_as("curator")
    client.post(
        field_url(project, "definition", "RESEARCH"),
        field_post(category, "definition", "Ours."),
    )
    changed = category_by_name(project, "RESEARCH")
    response = client.post(
        reverse("taxonomy:clear", args=[project.pk, "RESEARCH"]),
        {"revision": changed.revision},
        **HTMX,
    )
    assert response.status_code == 200
    assert category.default_criteria["definition"] in response.content.decode()
    assert not category_by_name(project, "RESEARCH").is_overridden


def test_a_moved_default_shows_three_texts_and_can_be_kept(project, client_as):
    """A flagged override shows old default, new default and override; Keep lowers the flag."""
    category = category_by_name(project, "RESEARCH")
    criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": "Our definition."},
        actor="system",
    )
    old_default = category.default_criteria
    new_default = {**old_default, "definition": "The pack's new definition."}
    Category.objects.filter(pk=category.pk).update(
        default_moved=True, previous_default=old_default, default_criteria=new_default
    )
    client = client_as("curator")
    page = client.get(page_url(project, "RESEARCH")).content.decode()
    assert "The pack default moved underneath this override." in page
    moved = find(find(page, "div", class_="moved", role="note"), "table", class_="three-texts")
    headings = [text(heading) for heading in find_all(find(moved, "thead"), "th", scope="col")]
    assert headings == ["Field", "Old default", "New default", "Override"]
    assert "The pack&#x27;s new definition." in page
    stored = category_by_name(project, "RESEARCH")
    client.post(
        reverse("taxonomy:keep", args=[project.pk, "RESEARCH"]), {"revision": stored.revision}
    )
    kept = category_by_name(project, "RESEARCH")
    assert not kept.default_moved
    assert kept.effective_criteria["definition"] == "Our definition."


def test_the_clear_form_carries_the_revision_shown_and_its_undo_this_page(project, client_as):
    """Clear sends the category's revision from its form; the note after it, with htmx, has an
    Undo that comes back to the category's page (not to the clear's address)."""
    category = criteria_override_save(
        category=category_by_name(project, "RESEARCH"),
        criteria={**category_by_name(project, "RESEARCH").effective_criteria, "definition": "O."},
        actor="system",
    )
    client = client_as("curator")
    clear = reverse("taxonomy:clear", args=[project.pk, "RESEARCH"])
    page = client.get(page_url(project, "RESEARCH")).content.decode()
    form = find(page, "form", method="post", action=clear)
    assert submitted(form)[1:] == [("revision", str(category.revision))]
    assert not find_all(form, "input", id=True)
    cleared = client.post(clear, dict(submitted(form)), **HTMX).content.decode()
    (undo,) = find_all(cleared, "form", class_="undo-form", method="post")
    assert submitted(undo)[1:] == [("next", page_url(project, "RESEARCH"))]


@pytest.mark.parametrize("revision", ["", "x", "0", "-1", "1.0", "9" * 30])
def test_a_clear_naming_no_revision_is_refused_and_nothing_is_cleared(project, client_as, revision):
    """A tampered revision is no category's: refused as a stale clear is, nothing done."""
    category = criteria_override_save(
        category=category_by_name(project, "RESEARCH"),
        criteria={**category_by_name(project, "RESEARCH").effective_criteria, "definition": "O."},
        actor="system",
    )
    response = client_as("curator").post(
        reverse("taxonomy:clear", args=[project.pk, "RESEARCH"]), {"revision": revision}
    )
    assert response.status_code == 409
    assert "the override was not cleared and nothing was done" in response.content.decode()
    stored = category_by_name(project, "RESEARCH")
    assert (stored.is_overridden, stored.revision) == (True, category.revision)


@pytest.mark.parametrize(("way", "status"), [("plain", 409), ("htmx", 200)])
def test_a_stale_clear_is_refused_as_an_error_with_both_texts(project, client_as, way, status):
    """A clear over someone else's newer save is an alert beside their text and the pack's."""
    category = category_by_name(project, "RESEARCH")
    pack_definition = category.default_criteria["definition"]
    seen = criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": "Ours."},
        actor="system",
    )
    criteria_override_save(
        category=seen,
        criteria={**seen.effective_criteria, "definition": "Their definition."},
        actor="system",
    )
    response = client_as("curator").post(
        reverse("taxonomy:clear", args=[project.pk, "RESEARCH"]),
        {"revision": seen.revision},
        **(HTMX if way == "htmx" else {}),
    )
    page = response.content.decode()
    assert response.status_code == status
    assert find_all(page, class_="saved") == []
    assert page.count("the override was not cleared and nothing was done") == 1
    conflict = text(conflict_box(page))
    assert "the override was not cleared and nothing was done" in conflict
    assert "Their version (in force)" in conflict and "Their definition." in conflict
    assert "Pack default (what clearing puts in force)" in conflict
    assert " ".join(pack_definition.split()) in conflict
    stored = category_by_name(project, "RESEARCH")
    assert stored.effective_criteria["definition"] == "Their definition."
    assert stored.revision == seen.revision + 1


@pytest.mark.parametrize(("way", "status"), [("plain", 409), ("htmx", 200)])
def test_a_stale_keep_is_refused_as_an_error_with_both_defaults(project, client_as, way, status):
    """The pack moved again after the page was read: keep is an alert with both defaults."""
    category = category_by_name(project, "RESEARCH")
    category = criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": "Our definition."},
        actor="system",
    )
    first_default = category.default_criteria

    def upgrade(definition):
        category.previous_default = category.previous_default or category.default_criteria
        category.default_criteria = {**first_default, "definition": definition}
        category.default_moved = True
        category.revision += 1
        category.save()

    upgrade("The pack's second definition.")
    seen_revision = category.revision
    upgrade("The pack's third definition.")
    response = client_as("curator").post(
        reverse("taxonomy:keep", args=[project.pk, "RESEARCH"]),
        {"revision": seen_revision},
        **(HTMX if way == "htmx" else {}),
    )
    page = response.content.decode()
    assert response.status_code == status
    assert find_all(page, class_="saved") == []
    assert page.count("the override was not kept and nothing was done") == 1
    conflict = text(conflict_box(page))
    assert "the override was not kept and nothing was done" in conflict
    assert "Pack default now" in conflict and "Pack default as you saw it" in conflict
    assert "The pack's third definition." in conflict
    assert "The pack's second definition." in conflict
    assert category_by_name(project, "RESEARCH").default_moved


# --- bad input


def test_markup_in_criteria_is_shown_as_text(project, client_as):
    """HTML or script in a criteria field is escaped on every page that shows it."""
    category = category_by_name(project, "OPS_RULES")
    client = client_as("curator")
    client.post(
        field_url(project, "definition"),
        field_post(category, "definition", '<script>alert("x")</script><b>bold</b>'),
    )
    for url in (
        page_url(project),
        reverse("taxonomy:prompt", args=[project.pk, "historian"]),
        reverse("taxonomy:index") + f"?project={project.pk}",
        reverse("taxonomy:surface", args=[project.pk]),
    ):
        page = client.get(url).content.decode()
        assert '<script>alert("x")' not in page
        assert "<b>bold</b>" not in page
    page = client.get(page_url(project)).content.decode()
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;b&gt;bold&lt;/b&gt;" in page


def test_an_empty_definition_is_refused(project, client_as):
    """The definition may not be emptied."""
    category = category_by_name(project, "OPS_RULES")
    response = client_as("curator").post(
        field_url(project, "definition"), field_post(category, "definition", "   ")
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert field_error(html, "id_definition") == "Definition is required; it cannot be empty."
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_an_empty_definition_is_refused_in_place_with_htmx(project, client_as):
    """With htmx the refusal comes back inside the editor section, the field still open."""
    category = category_by_name(project, "OPS_RULES")
    response = client_as("curator").post(
        field_url(project, "definition"), field_post(category, "definition", ""), **HTMX
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert ids_of(body)[0] == ("div", "editor-section")
    field = find(body, "section", id="field-definition")
    assert "Definition is required" in text(field)
    assert find(field, "form", method="post", action=field_url(project, "definition"))


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("definition", "x" * (DEFINITION_MAX + 1), f"at most {DEFINITION_MAX} characters"),
        ("test_question", "q" * 301, "at most 300 characters (this has 301)"),
        ("exclusions", ["e" * 501], "at most 500 characters"),
        ("positive_examples", [f"Fact {i}." for i in range(21)], "at most 20 items (this has 21)"),
    ],
)
def test_over_long_fields_get_a_limit_message(project, client_as, field, value, message):
    """Too long a text, or too many items, is refused with the limit named."""
    category = category_by_name(project, "OPS_RULES")
    response = client_as("curator").post(
        field_url(project, field), field_post(category, field, value)
    )
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_an_unknown_category_or_field_is_not_found(project, client_as):
    """Only the pack's names and the criteria fields have pages."""
    client = client_as("curator")
    assert client.get(page_url(project, "NOT_IN_PACK")).status_code == 404
    assert client.post(field_url(project, "name"), {"revision": 1}).status_code == 404


# --- roles


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_only_curators_edit_criteria(project, client_as, role):
    """Viewers and editors read criteria but cannot change them."""
    category = category_by_name(project, "OPS_RULES")
    client = client_as(role)
    assert client.get(page_url(project)).status_code == 200
    denied = [
        client.post(field_url(project, "definition"), field_post(category, "definition", "X.")),
        client.get(reverse("taxonomy:edit", args=[project.pk, "OPS_RULES"])),
        client.post(reverse("taxonomy:clear", args=[project.pk, "OPS_RULES"]), {"revision": 1}),
        client.post(reverse("taxonomy:keep", args=[project.pk, "OPS_RULES"]), {"revision": 1}),
    ]
    assert [r.status_code for r in denied] == [403, 403, 403, 403]
    assert not category_by_name(project, "OPS_RULES").is_overridden


def test_no_role_reads_nothing(project, client, django_user_model):
    """Someone signed in without a role gets no criteria page."""
    client.force_login(django_user_model.objects.create_user("nobody", password="x"))
    assert client.get(page_url(project)).status_code == 403


# --- prompt previews and the surface history


@pytest.mark.parametrize(
    ("site", "expected"),
    [("historian", "## Output contract"), ("curate", "## Categories, in priority order"),
     ("tool", "category: one of OPS_RULES")],
)  # fmt: skip
def test_prompt_previews_show_each_text_with_a_copy_button(project, client_as, site, expected):
    """Each preview shows its assembled text and a copy button."""
    response = client_as("viewer").get(reverse("taxonomy:prompt", args=[project.pk, site]))
    page = response.content.decode()
    assert response.status_code == 200
    assert expected in page
    copy = find(page, "button", type="button", data_copy="prompt-text")
    assert "copy" in attribute(copy, "class").split()
    assert expected in text(find(page, "pre", id="prompt-text"))
    assert "memadmin/copy.js" in page


def test_an_unknown_prompt_site_is_not_found(project, client_as):
    """Only the three sites have previews."""
    response = client_as("viewer").get(reverse("taxonomy:prompt", args=[project.pk, "other"]))
    assert response.status_code == 404


def test_surface_history_lists_value_change_who_and_when(project, client_as):
    """The history page lists each value with its change and its actor."""
    category = category_by_name(project, "OPS_RULES")
    client = client_as("curator")
    client.post(field_url(project, "hard_stop"), field_post(category, "hard_stop", "Never."))
    page = client.get(reverse("taxonomy:surface", args=[project.pk])).content.decode()
    assert "OPS_RULES: criteria edited (hard stop)" in page
    assert "pack ops-six 1.0.0 installed" in page
    assert "curator" in page and "system" in page
    assert current_surface_hash(project)[:12] in page


def test_the_form_states_each_fields_limit_before_anything_is_refused(project, client_as):
    """A pasted text is cut short by the box's maxlength, so the limit is written beside it."""
    edit_url = reverse("taxonomy:edit", args=[project.pk, "OPS_RULES"])
    body = client_as("curator").get(edit_url).content.decode()
    assert f"What the category holds. Required. At most {DEFINITION_MAX} characters." in body
    assert "At most 300 characters." in body
    assert "At most 20 items of 500 characters each." in body


def test_the_criteria_count_is_the_overviews_live_count(client_as, project):
    """Criteria counts live memories, as the overview does; archived ones are named apart."""
    from memadmin.memories.archive_services import memory_archive

    made = [
        memory_create(project=project, category="ENV_STATE", content=f"Host {n}.", actor="agent")
        for n in range(3)
    ]
    memory_archive(memory=made[0], actor="agent", reason="gone")
    client = client_as("viewer")
    page = client.get(reverse("taxonomy:index"), {"project": project.pk}).content.decode()
    (row,) = [r for r in find_all(page, "tr") if text(r).startswith("ENV_STATE")]
    assert text(find_all(row, "td")[-1]) == "2 (3 with archived)"
    cards = client.get(reverse("home")).context["cards"]
    (overview,) = [card for card, _chart, _query in cards if card.project == project]
    assert dict(overview.by_category)["ENV_STATE"] == 2

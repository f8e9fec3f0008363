"""The historian-output checker: page and command, against the project's own categories."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memadmin.core.prompts import HISTORIAN
from memadmin.memories.facts_services import facts_write
from memadmin.memories.models import Memory
from memadmin.memories.services import memory_create
from memadmin.taxonomy.selectors import category_names, facts_check, prompt_texts
from tests.html_tree import field_error, find, find_all, submitted, top
from tests.html_tree import text as text_of

pytestmark = pytest.mark.django_db

OUTPUT = """Some talk before.
<facts>
<OPS_RULES>
* Drain a node before rebooting it.
* Deploy with just deploy.
</OPS_RULES>
<USER_DIRECTIVES>
* Use tabs.
</USER_DIRECTIVES>
<RESEARCH>
</RESEARCH>
<INCIDENTS>
*
stray words
</INCIDENTS>
</facts>
"""


def test_the_contract_tags_of_the_historian_prompt_are_the_categories_the_checker_accepts(
    mc_project,
):
    """The prompt's output contract and the checker read one list: the store's categories."""
    historian = prompt_texts(mc_project)[HISTORIAN]
    allowed_line = next(line for line in historian.splitlines() if line.startswith("Allowed tags"))
    writable = category_names(mc_project, writable_only=True)
    assert allowed_line == "Allowed tags: " + ", ".join(writable) + "."
    contract = "\n".join(
        [
            "<facts>",
            *[f"<{name}>\n* A fact for {name}.\n</{name}>" for name in writable],
            "</facts>",
        ]
    )
    report = facts_check(mc_project, contract)
    assert [f.category for f in report.accepted] == writable
    assert report.rejected == []


def test_legacy_categories_are_rejected_as_read_only(mc_project):
    """A legacy tag takes no facts; the reason names it read-only and where its facts go."""
    report = facts_check(
        mc_project,
        "<facts>\n<USER_DIRECTIVES>\n* Tabs.\n</USER_DIRECTIVES>\n<NOPE>\n* x\n</NOPE>\n</facts>",
    )
    assert report.accepted == []
    assert [(item.line, item.reason) for item in report.rejected] == [
        (3, "legacy category <USER_DIRECTIVES> is read-only; its facts belong in <PROJECT_RULES>"),
        (6, "unknown category <NOPE>"),
    ]


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=st.text(alphabet=st.sampled_from(list("<>/*-\n facts_OPSRULEIDNCx")), max_size=300))
def test_any_pasted_text_is_checked_against_the_store_without_error(project, text):
    """Whatever is pasted, only the project's writable categories are accepted."""
    report = facts_check(project, text)
    writable = set(category_names(project, writable_only=True))
    assert all(fact.category in writable for fact in report.accepted)
    assert all(fact.content.strip() for fact in report.accepted)
    assert all(item.reason for item in report.rejected)


# --- the page


def test_the_page_lists_accepted_facts_by_category_and_every_rejection(project, client_as):
    """Accepted facts come under their category; each rejected item shows line and reason."""
    url = reverse("taxonomy:facts", args=[project.pk])
    response = client_as("viewer").post(url, {"text": OUTPUT, "action": "check"})
    page = response.content.decode()
    assert response.status_code == 200
    assert "2 accepted, 5 rejected" in page
    accepted = find(page, "section", class_="facts-accepted")
    (heading,) = [h for h in find_all(accepted, "h4") if text_of(h) == "OPS_RULES (2)"]
    assert text_of(find(heading, "small")) == "(2)"
    assert "Drain a node before rebooting it." in text_of(accepted)
    rejected = find(find(page, "section", class_="facts-rejected"), "tbody")
    reasons = [text_of(find_all(row, "td")[1]) for row in find_all(rejected, "tr")]
    for reason in (
        "unknown category <USER_DIRECTIVES>",
        "empty block",
        "empty bullet",
        "malformed: text outside a bullet",
    ):
        assert any(reason in shown for shown in reasons), reason
    assert "Write 2 accepted facts" not in page  # a viewer may check, not write
    assert not Memory.objects.exists()


def test_htmx_gets_the_report_section_only(project, client_as):
    """With htmx the report replaces only its own section."""
    url = reverse("taxonomy:facts", args=[project.pk])
    response = client_as("viewer").post(url, {"text": OUTPUT}, HTTP_HX_REQUEST="true")
    (section,) = top(response.content.decode())
    assert (section.name, section.attributes.get("id")) == ("div", "report-section")


def test_an_editor_writes_the_accepted_facts_with_the_duplicate_rule(project, client_as):
    """Writing creates new memories and only bumps an exact duplicate."""
    existing = memory_create(
        project=project, category="OPS_RULES", content="deploy with JUST deploy.", actor="agent"
    )
    url = reverse("taxonomy:facts", args=[project.pk])
    client = client_as("editor")
    checked = client.post(url, {"text": OUTPUT, "action": "check"}).content.decode()
    assert "Write 2 accepted facts as memories" in checked
    response = client.post(url, {"text": OUTPUT, "action": "write"})
    page = response.content.decode()
    assert "Written: 1 new, 1 seen again" in page
    existing.refresh_from_db()
    assert existing.seen_count == 2
    created = Memory.objects.get(content="Drain a node before rebooting it.")
    assert (created.category, created.source_type) == ("OPS_RULES", "historian")
    assert created.history.first().history_actor == "editor"


def test_a_viewer_cannot_write(project, client_as):
    """Writing memories needs the editor role."""
    url = reverse("taxonomy:facts", args=[project.pk])
    response = client_as("viewer").post(url, {"text": OUTPUT, "action": "write"})
    assert response.status_code == 403
    assert not Memory.objects.exists()


def test_markup_in_pasted_output_is_shown_as_text(project, client_as):
    """Pasted text is escaped in the report."""
    text = "<facts>\n<OPS_RULES>\n* <img src=x onerror=alert(1)>\n</OPS_RULES>\n</facts>"
    page = client_as("viewer").post(reverse("taxonomy:facts", args=[project.pk]), {"text": text})
    body = page.content.decode()
    assert "<img src=x" not in body
    assert "&lt;img src=x onerror=alert(1)&gt;" in body


def test_empty_and_over_long_pastes_are_refused(project, client_as):
    """Nothing to check, or too much, is said so."""
    client = client_as("viewer")
    url = reverse("taxonomy:facts", args=[project.pk])
    empty = client.post(url, {"text": ""})
    assert empty.status_code == 400
    assert "Paste the historian" in field_error(empty.content.decode(), "id_text")
    huge = client.post(url, {"text": "x" * 200_001})
    assert huge.status_code == 400
    assert "At most 200000 characters" in huge.content.decode()


def test_a_fact_the_store_refuses_is_listed_and_the_rest_are_written(project):
    """An over-long fact is refused with its reason; the other facts are still written."""
    long_fact = "y" * 20_001
    text = f"<facts>\n<OPS_RULES>\n* {long_fact}\n* Short fact.\n</OPS_RULES>\n</facts>"
    written = facts_write(project=project, report=facts_check(project, text), actor="historian")
    assert [fact.content for fact, _ in written.created] == ["Short fact."]
    assert "at most 20000 characters" in written.refused[0][1]


# --- the command


def test_the_command_reports_and_writes(project, tmp_path):
    """`facts check FILE --project P` prints the report; --write writes the accepted facts."""
    path = tmp_path / "out.txt"
    path.write_text(OUTPUT)
    out = io.StringIO()
    call_command("facts", "check", str(path), "--project", project.identity, stdout=out)
    text = out.getvalue()
    assert "OPS_RULES (2 accepted)" in text
    assert "  line 4: Drain a node before rebooting it." in text
    assert "  line 8: unknown category <USER_DIRECTIVES>: Use tabs." in text
    assert "2 accepted, 5 rejected." in text
    assert not Memory.objects.exists()
    out = io.StringIO()
    call_command("facts", "check", str(path), "--project", project.identity, "--write", stdout=out)
    assert "Written: 2 new, 0 seen again, 0 refused." in out.getvalue()
    assert Memory.objects.get(content="Deploy with just deploy.").history.first().history_actor == (
        "historian"
    )


def test_the_command_refuses_a_missing_file_or_project(project, tmp_path):
    """A file that cannot be read, or an unknown project, is an error."""
    with pytest.raises(CommandError, match="cannot read"):
        call_command("facts", "check", str(tmp_path / "none"), "--project", project.identity)
    with pytest.raises(CommandError, match="no project"):
        call_command("facts", "check", str(tmp_path), "--project", "git:nope")


def test_the_write_form_sends_back_the_text_with_its_leading_blank_lines(project, client_as):
    """The write form carries the text checked in the field's hidden input, line breaks kept,
    so line numbers hold; it names no id the text box above has."""
    text = "\n\n" + OUTPUT
    url = reverse("taxonomy:facts", args=[project.pk])
    page = client_as("editor").post(url, {"text": text, "action": "check"}).content.decode()
    (form,) = [
        form
        for form in find_all(page, "form", method="post")
        if find_all(form, "input", type="hidden", name="text")
    ]
    assert "id" not in find(form, "input", type="hidden", name="text").attributes
    assert dict(submitted(form))["text"] == text  # as a browser reads it

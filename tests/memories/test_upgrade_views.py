"""The pack page: the plan of an upgrade in the browser, its apply, refusals and broken packs."""

import pytest
from django.urls import reverse
from django.utils.html import escape

from memadmin.audit.models import AuditEvent
from memadmin.memories.models import Memory
from memadmin.memories.pack_upgrade_services import pack_upgrade_plan
from memadmin.memories.services import memory_create
from memadmin.taxonomy.selectors import category_by_name, category_names
from memadmin.taxonomy.services import criteria_override_save, pack_load
from tests.html_tree import attribute, definitions, field_error, find, find_all, links, submitted
from tests.html_tree import text as text_of

from .test_upgrade import NEW_OPS_DEFINITION, OPS_DEFINITION, snapshot

pytestmark = pytest.mark.django_db

RENAME = ('name = "INCIDENTS"', 'name = "OUTAGES"')


def page_url(project) -> str:
    return reverse("taxonomy:pack", args=[project.pk])


def apply_url(project) -> str:
    return reverse("taxonomy:pack_apply", args=[project.pk])


def apply_form(project, text: str) -> dict:
    """Return what the apply form on the page posts, as it stands (its CSRF token aside)."""
    form = find(text, "form", method="post", action=apply_url(project))
    sent = submitted(form)
    assert len({name for name, _ in sent}) == len(sent), "a name sent twice"
    return {name: value for name, value in sent if name != "csrfmiddlewaretoken"}


def fingerprint(project, mapping=None) -> str:
    """Return the fingerprint of the plan the page shows for ops-six with this mapping."""
    plan = pack_upgrade_plan(project=project, spec=pack_load("ops-six"), mapping=mapping or {})
    return plan.fingerprint()


def test_the_index_links_to_the_pack_page(project, client_as):
    """The criteria overview of a project links to its pack page."""
    page = client_as("viewer").get(reverse("taxonomy:index"), {"project": project.pk})
    assert dict(links(page.content.decode()))["Pack and upgrades"] == page_url(project)


def test_the_pack_page_shows_the_installed_pack_and_the_pack_files(project, client_as, packs_dir):
    """The page names the installed pack and lists every pack file with its version."""
    page = client_as("viewer").get(page_url(project))
    assert page.status_code == 200
    text = page.content.decode()
    (runs,) = [p for p in find_all(text, "p") if text_of(p).startswith(f"{project.name} runs ")]
    assert text_of(find(runs, "strong")) == "ops-six 1.0.0"
    assert "magic-context" in text and "installed" in text
    assert "Upgrade plan" not in text


def test_the_plan_of_a_criteria_only_upgrade_reads_like_the_command(
    project, ops_variant, client_as
):
    """The plan shows the kind, the flagged override with three texts and the surface hash."""
    category = category_by_name(project, "OPS_RULES")
    criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "hard_stop": "Ours."},
        actor="system",
    )
    ops_variant((OPS_DEFINITION, NEW_OPS_DEFINITION))
    before = snapshot(project)
    page = client_as("viewer").get(page_url(project), {"target": "ops-six"})
    assert page.status_code == 200
    text = page.content.decode()
    assert "Upgrade plan: ops-six 1.0.0 → ops-six 1.1.0 (criteria only)" in text
    assert "OPS_RULES: override kept, but its pack default moved underneath it" in text
    assert "Old default" in text and "New default" in text
    assert escape(NEW_OPS_DEFINITION) in text
    assert "Surface hash unchanged" in text, "the override is in force, before and after"
    assert "Apply" not in text, "a viewer is shown no apply button"
    assert snapshot(project) == before


def test_a_rename_with_memories_asks_where_they_go_and_is_refused_until_told(
    project, ops_variant, client_as
):
    """An unmapped category with memories is a refusal; a select per removed category asks."""
    memory_create(project=project, category="INCIDENTS", content="Disk full.", actor="agent")
    ops_variant(RENAME)
    client = client_as("curator")
    page = client.get(page_url(project), {"target": "ops-six"})
    text = page.content.decode()
    assert "(names changed)" in text and "migration event" in text
    names = definitions(find(find(text, "section", aria_labelledby="plan-title"), "dl"))
    assert text_of(names["Added categories"]) == "OUTAGES"
    assert text_of(names["Removed categories"]) == "INCIDENTS"
    planning = find(text, "form", method="get", action=page_url(project))
    where = find(planning, "select", name="map-INCIDENTS")
    assert "OUTAGES" in [attribute(option, "value") for option in find_all(where, "option")]
    assert "1 memory in INCIDENTS, which ops-six 1.1.0 no longer defines" in text
    assert apply_url(project) not in text

    page = client.get(page_url(project), {"target": "ops-six", "map-INCIDENTS": "OUTAGES"})
    text = page.content.decode()
    assert "Move 1 memory: INCIDENTS → OUTAGES" in text
    assert "Refused" not in text
    assert apply_form(project, text)["fingerprint"] == fingerprint(
        project, {"INCIDENTS": "OUTAGES"}
    )


def test_an_unknown_target_is_named_at_its_select(project, client_as):
    """A pack file that is not offered is refused beside the choice of target."""
    page = client_as("curator").get(page_url(project), {"target": "no-such-pack"})
    assert "no-such-pack" in field_error(page.content.decode(), "id_target")


def test_a_refused_apply_shows_the_reasons_and_writes_nothing(project, ops_variant, client_as):
    """Applying a plan that holds a refusal shows the plan with its reasons, status 400."""
    memory_create(project=project, category="INCIDENTS", content="Disk full.", actor="agent")
    ops_variant(RENAME)
    before = snapshot(project)
    data = {"target": "ops-six", "fingerprint": fingerprint(project), "reason": "Rename."}
    page = client_as("curator").post(apply_url(project), data)
    assert page.status_code == 400
    assert "say where they go with --map INCIDENTS=&lt;category&gt;" in page.content.decode()
    assert snapshot(project) == before


def test_moving_onto_a_duplicate_is_refused_on_the_page(project, ops_variant, client_as):
    """A collision is a refusal the plan names, and the apply writes nothing."""
    memory_create(project=project, category="INCIDENTS", content="Disk full.", actor="agent")
    memory_create(project=project, category="RESEARCH", content="disk  FULL.", actor="agent")
    ops_variant(RENAME)
    mapping = {"INCIDENTS": "RESEARCH"}
    before = snapshot(project)
    data = {"target": "ops-six", "map-INCIDENTS": "RESEARCH"}
    data["fingerprint"] = fingerprint(project, mapping)
    page = client_as("curator").post(apply_url(project), data)
    assert page.status_code == 400
    assert "is an exact duplicate of" in page.content.decode()
    assert snapshot(project) == before


def test_apply_moves_the_memories_and_records_the_actor_and_reason(
    project, ops_variant, client_as, people
):
    """A curator's apply upgrades as planned; the audit event names them and their reason."""
    memory = memory_create(project=project, category="INCIDENTS", content="Disk.", actor="agent")
    ops_variant(RENAME)
    client = client_as("curator")
    page = client.get(page_url(project), {"target": "ops-six", "map-INCIDENTS": "OUTAGES"})
    data = apply_form(project, page.content.decode())
    assert data == {
        "target": "ops-six",
        "map-INCIDENTS": "OUTAGES",
        "fingerprint": fingerprint(project, {"INCIDENTS": "OUTAGES"}),
        "reason": "",
    }
    data["reason"] = "Incidents are outages now."
    response = client.post(apply_url(project), data, follow=True)
    assert response.redirect_chain[-1][0] == f"{reverse('taxonomy:index')}?project={project.pk}"
    assert "now runs ops-six 1.1.0" in response.content.decode()
    project.refresh_from_db()
    assert project.pack.version == "1.1.0"
    memory.refresh_from_db()
    assert memory.category == "OUTAGES"
    assert "INCIDENTS" not in category_names(project)
    event = AuditEvent.objects.get(action="pack_upgraded")
    assert event.actor_user == people["curator"]
    assert event.reason == "Incidents are outages now."
    assert event.changes["moved"] == {"INCIDENTS": 1}


def test_a_stale_plan_is_refused_with_the_new_plan_and_the_reason_kept(
    project, ops_variant, client_as
):
    """If the store changed since the plan was shown, nothing is written; the new plan shows."""
    memory_create(project=project, category="INCIDENTS", content="Disk.", actor="agent")
    ops_variant(RENAME)
    mapping = {"INCIDENTS": "OUTAGES"}
    shown = fingerprint(project, mapping)
    memory_create(project=project, category="INCIDENTS", content="Fan.", actor="agent")
    before = snapshot(project)
    data = {
        "target": "ops-six",
        "map-INCIDENTS": "OUTAGES",
        "fingerprint": shown,
        "reason": "Incidents are outages now.",
    }
    page = client_as("curator").post(apply_url(project), data)
    assert page.status_code == 409
    text = page.content.decode()
    assert "changed since this plan was shown" in text
    assert "Move 2 memories: INCIDENTS → OUTAGES" in text
    new = fingerprint(project, mapping)
    assert new != shown
    assert snapshot(project) == before

    # Applying the plan shown again goes through, with the reason typed.
    again = apply_form(project, text)
    assert again == {**data, "fingerprint": new}
    assert client_as("curator").post(apply_url(project), again).status_code == 302
    assert Memory.objects.filter(project=project, category="OUTAGES").count() == 2
    assert AuditEvent.objects.get(action="pack_upgraded").reason == data["reason"]


def test_a_changed_pack_file_makes_the_plan_stale(project, ops_variant, client_as):
    """A pack file rewritten after the plan was shown is another plan: nothing is written."""
    ops_variant((OPS_DEFINITION, NEW_OPS_DEFINITION))
    shown = fingerprint(project)
    ops_variant((OPS_DEFINITION, "A rule for running the project's systems"))
    before = snapshot(project)
    data = {"target": "ops-six", "fingerprint": shown}
    page = client_as("curator").post(apply_url(project), data)
    assert page.status_code == 409
    assert snapshot(project) == before


@pytest.mark.parametrize("role", ["viewer", "editor"])
def test_only_a_curator_may_apply(project, ops_variant, client_as, role):
    """Viewers and editors may read a plan but are refused an apply."""
    ops_variant((OPS_DEFINITION, NEW_OPS_DEFINITION))
    before = snapshot(project)
    data = {"target": "ops-six", "fingerprint": fingerprint(project)}
    assert client_as(role).post(apply_url(project), data).status_code == 403
    assert snapshot(project) == before


def test_an_apply_without_a_fingerprint_is_refused(project, ops_variant, client_as):
    """An apply must say which plan it confirms."""
    ops_variant((OPS_DEFINITION, NEW_OPS_DEFINITION))
    before = snapshot(project)
    page = client_as("curator").post(apply_url(project), {"target": "ops-six"})
    assert page.status_code == 400
    assert "did not say which plan it confirms" in page.content.decode()
    assert snapshot(project) == before


def test_an_unchanged_pack_is_nothing_to_do(project, packs_dir, client_as):
    """Planning the file already installed offers no apply."""
    page = client_as("curator").get(page_url(project), {"target": "ops-six"})
    text = page.content.decode()
    assert "(nothing to do)" in text
    assert apply_url(project) not in text


def test_a_broken_pack_file_is_shown_as_an_error_and_nothing_is_written(
    project, ops_variant, client_as
):
    """The loader's error (file, field, problem) is on the page; no plan, nothing written."""
    ops_variant(('name = "INCIDENTS"', 'name = "incidents"'))
    before = snapshot(project)
    client = client_as("curator")
    listed = client.get(page_url(project))
    assert listed.status_code == 200
    problem = "ops-six.toml: categories[3].name"
    assert problem in listed.content.decode()

    page = client.get(page_url(project), {"target": "ops-six"})
    assert page.status_code == 400
    text = page.content.decode()
    assert "cannot be loaded" in text and problem in text
    assert "Upgrade plan" not in text

    page = client.post(apply_url(project), {"target": "ops-six", "fingerprint": "x" * 32})
    assert page.status_code == 400
    assert problem in page.content.decode()
    assert snapshot(project) == before


def _nested_too_deep(packs_dir):
    (packs_dir / "deep.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    return "deep.toml: file: invalid TOML: nested too deeply to read"


def _a_folder(packs_dir):
    (packs_dir / "folder.toml").mkdir()
    return "folder.toml: file: is a folder, not a pack file"


def _huge_priority(packs_dir):
    text = (packs_dir / "ops-six.toml").read_text().replace('name = "ops-six"', 'name = "huge"', 1)
    (packs_dir / "huge.toml").write_text(
        text.replace("priority = 1\n", "priority = 10000000000000000000000000000\n", 1)
    )
    return "huge.toml: categories[0].priority: is 10000000000000000000000000000"


BROKEN_FILES = {"deep": _nested_too_deep, "folder": _a_folder, "huge": _huge_priority}


@pytest.mark.parametrize("name", BROKEN_FILES)
def test_a_file_no_pack_can_be_read_from_is_named_on_every_pack_page(
    project, packs_dir, client_as, name
):
    """A folder named *.toml, a TOML nested 5,000 deep, a priority past 32 bits: each is
    named as broken on the page, its plan and its apply; the good packs stay usable."""
    problem = BROKEN_FILES[name](packs_dir)
    before = snapshot(project)
    client = client_as("curator")
    listed = client.get(page_url(project))
    assert listed.status_code == 200
    assert problem in listed.content.decode()
    assert "magic-context 1.0.0" in listed.content.decode()
    page = client.get(page_url(project), {"target": name})
    assert page.status_code == 400
    assert "cannot be loaded" in page.content.decode()
    page = client.post(apply_url(project), {"target": name, "fingerprint": "x" * 32})
    assert page.status_code == 400
    assert snapshot(project) == before
    # The good packs still plan.
    assert client.get(page_url(project), {"target": "ops-six"}).status_code == 200

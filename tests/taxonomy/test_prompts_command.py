"""`manage.py prompts`: the texts and the hash the pages show, from the same store."""

import io

import pytest
from django.core.management import CommandError, call_command

from memadmin.core.prompts import CURATE, HISTORIAN, TOOL_DESCRIPTION
from memadmin.projects.services import project_create
from memadmin.taxonomy.selectors import category_by_name, current_surface_hash, prompt_texts
from memadmin.taxonomy.services import criteria_override_save

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command("prompts", *args, stdout=out)
    return out.getvalue()


@pytest.mark.parametrize(
    ("site", "key"), [("historian", HISTORIAN), ("curate", CURATE), ("tool", TOOL_DESCRIPTION)]
)
def test_render_prints_the_assembled_text(mc_project, site, key):
    """Each site prints exactly the text assembled from the store."""
    assert (
        run("render", "--site", site, "--project", mc_project.identity)
        == (prompt_texts(mc_project)[key])
    )


def test_render_follows_an_override(project):
    """An edited criterion is in the printed historian text."""
    category = category_by_name(project, "RESEARCH")
    criteria_override_save(
        category=category,
        criteria={**category.effective_criteria, "definition": "Conclusions with evidence."},
        actor="system",
    )
    assert "Conclusions with evidence." in run(
        "render", "--site", "historian", "--project", project.identity
    )


def test_hash_prints_the_surface_hash(project):
    """`prompts hash` prints the digest the pages show."""
    assert run("hash", "--project", project.identity).strip() == current_surface_hash(project)


def test_unknown_site_project_or_missing_pack_is_an_error(project):
    """Bad arguments are refused."""
    with pytest.raises(CommandError):
        run("render", "--site", "dreamer", "--project", project.identity)
    with pytest.raises(CommandError, match="no project"):
        run("render", "--site", "tool", "--project", "git:unknown")
    bare = project_create(identity="git:" + "c" * 40, name="Bare", actor="system")
    with pytest.raises(CommandError, match="runs no pack"):
        run("hash", "--project", bare.identity)

"""`manage.py pack list` and `pack install`: a broken pack names file, field and problem."""

import re
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from memadmin.projects.services import project_create
from memadmin.taxonomy.models import Category, Pack

pytestmark = pytest.mark.django_db

PACKS = Path(__file__).resolve().parents[2] / "packs"


@pytest.fixture
def bare_project(db):
    return project_create(identity="git:" + "c" * 40, name="Bare", actor="system")


def test_list_names_both_shipped_packs_and_their_legacy_categories(capsys):
    """The list shows every pack with its writable and legacy categories."""
    call_command("pack", "list")
    out = capsys.readouterr().out
    assert (
        "magic-context 1.0.0: PROJECT_RULES, ARCHITECTURE, CONSTRAINTS, CONFIG_VALUES, NAMING"
        in out
    )
    assert "legacy: " in out and "WORKFLOW_RULES" in out
    assert (
        "ops-six 1.0.0: OPS_RULES, ENV_STATE, CONFIG_VALUES, INCIDENTS, RESEARCH, MODEL_KNOWLEDGE"
        in out
    )


def test_install_writes_the_categories_with_mapping_and_ttl(bare_project, capsys):
    """Installing magic-context writes twelve categories; legacy ones map and expire as upstream."""
    call_command("pack", "install", "magic-context", "--project", bare_project.identity)
    categories = {c.name: c for c in Category.objects.filter(project=bare_project)}
    assert len(categories) == 12
    assert (
        categories["WORKFLOW_RULES"].legacy
        and categories["WORKFLOW_RULES"].maps_to == "PROJECT_RULES"
    )
    assert categories["WORKFLOW_RULES"].ttl_days == 90
    assert (
        categories["KNOWN_ISSUES"].ttl_days == 30
        and categories["KNOWN_ISSUES"].maps_to == "CONSTRAINTS"
    )
    assert categories["PROJECT_RULES"].ttl_days is None and not categories["PROJECT_RULES"].legacy
    assert "runs magic-context 1.0.0" in capsys.readouterr().out


def test_a_broken_pack_names_file_field_and_problem_and_installs_nothing(
    bare_project, tmp_path, settings
):
    """A pack with an empty definition is refused before anything is written."""
    text = (PACKS / "ops-six.toml").read_text()
    broken = text.replace('definition = """', 'definition = ""\nold_definition = """', 1)
    (tmp_path / "ops-six.toml").write_text(broken)
    settings.PACKS_DIR = tmp_path
    with pytest.raises(CommandError) as refused:
        call_command("pack", "install", "ops-six", "--project", bare_project.identity)
    message = str(refused.value)
    assert message.startswith("ops-six.toml: categories[0].criteria")
    assert not Category.objects.exists() and not Pack.objects.exists()
    bare_project.refresh_from_db()
    assert bare_project.pack is None


def test_an_unknown_pack_or_project_is_refused(bare_project):
    """Unknown names get a clear message."""
    with pytest.raises(CommandError, match="no pack named 'nope'"):
        call_command("pack", "install", "nope", "--project", bare_project.identity)
    with pytest.raises(CommandError, match="no project git:missing"):
        call_command("pack", "install", "ops-six", "--project", "git:missing")
    assert not Category.objects.exists()


def test_switching_packs_by_install_is_refused(bare_project):
    """A project on one pack is not switched to another by install."""
    call_command("pack", "install", "ops-six", "--project", bare_project.identity)
    with pytest.raises(CommandError, match="already runs pack ops-six"):
        call_command("pack", "install", "magic-context", "--project", bare_project.identity)
    assert Category.objects.filter(project=bare_project).count() == 6


def test_list_names_the_broken_files_and_lists_the_good_ones(tmp_path, settings, capsys):
    """`pack list` goes past a broken file: the good packs are listed, each bad one named."""
    for pack in PACKS.glob("*.toml"):
        (tmp_path / pack.name).write_bytes(pack.read_bytes())
    (tmp_path / "a-folder.toml").mkdir()
    (tmp_path / "a-deep.toml").write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    settings.PACKS_DIR = tmp_path
    call_command("pack", "list")
    out, err = capsys.readouterr()
    assert "magic-context 1.0.0" in out and "ops-six 1.0.0" in out
    assert "a-folder.toml: file: is a folder, not a pack file" in err
    assert "a-deep.toml: file: invalid TOML: nested too deeply to read" in err


@pytest.mark.parametrize(
    ("name", "write", "problem"),
    [
        (
            "deep",
            lambda path: path.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n"),
            "nested too deeply",
        ),
        ("folder", lambda path: path.mkdir(), "is a folder, not a pack file"),
        (
            "huge",
            lambda path: path.write_text(
                (PACKS / "ops-six.toml")
                .read_text()
                .replace('name = "ops-six"', 'name = "huge"', 1)
                .replace("priority = 1\n", "priority = 1000000000000000000000000000\n", 1)
            ),
            "categories[0].priority: is 1000000000000000000000000000",
        ),
    ],
)
def test_installing_a_file_no_pack_can_be_read_from_is_refused(
    bare_project, tmp_path, settings, name, write, problem
):
    """Install names the file and the problem (never a traceback) and writes nothing."""
    write(tmp_path / f"{name}.toml")
    settings.PACKS_DIR = tmp_path
    with pytest.raises(CommandError, match=re.escape(problem)):
        call_command("pack", "install", name, "--project", bare_project.identity)
    assert not Category.objects.exists() and not Pack.objects.exists()

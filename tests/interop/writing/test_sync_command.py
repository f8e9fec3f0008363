"""`manage.py sync_context_db`: a progress bar, a summary, and refusals that exit with the problems."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils.html import escape
from pytest_django.asserts import assertContains

from memadmin.interop.models import SyncRun
from memadmin.interop.writing.progress import ProgressBar, render
from tests.interop.conftest import OTHER_PROJECT, PROJECT
from tests.upstream_store import make_row

pytestmark = pytest.mark.django_db


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("sync_context_db", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_summary_and_progress(store):
    """The summary counts new, changed, unchanged, gone and flagged; the bar ends each phase."""
    rows = [make_row(content="One."), make_row(content="Two.", category="ODD_ONE")]
    out, err = run(str(store(rows=rows)))
    assert "2 new, 0 changed, 0 unchanged, 0 gone, 1 flagged; 2 session(s)" in out
    assert f"new project {PROJECT}" in out
    assert "categories outside the pack: ODD_ONE (1)" in out
    assert "writing            [##############################] 100% 2/2" in err
    again, _ = run(str(store(rows=rows, name="same.db")), "--no-progress")
    assert "0 new, 0 changed, 2 unchanged, 0 gone, 1 flagged" in again


def test_incremental_option_reports_nothing_changed(store):
    """--incremental on a store synced before, unchanged, says so and records no run."""
    path = str(store(rows=[make_row(content="One.")]))
    first, _ = run(path, "--incremental", "--no-progress")
    assert "1 new" in first
    again, _ = run(path, "--incremental", "--no-progress")
    assert again == f"{path}: nothing changed since the last sync\n"
    assert SyncRun.objects.count() == 1


def test_project_option(store):
    """--project limits the sync to one project."""
    out, _ = run(str(store()), "--project", OTHER_PROJECT, "--no-progress")
    assert "1 new" in out
    assert PROJECT not in out


def test_refusal_exits_with_every_problem(store):
    """A refused sync exits with an error; each problem is printed with its row and column."""
    rows = [make_row(content="A.", merged_from="[1,"), make_row(content="B.", merged_from="{}")]
    err = io.StringIO()
    with pytest.raises(CommandError, match="sync refused, nothing imported: 2 problem"):
        call_command("sync_context_db", str(store(rows=rows)), stderr=err, stdout=io.StringIO())
    assert "memories row 1, column merged_from: '[1,' is not valid JSON" in err.getvalue()
    assert "memories row 2, column merged_from: '{}' is not a JSON array" in err.getvalue()


def test_missing_file_exits_with_its_name(tmp_path):
    """A path that does not exist is named."""
    with pytest.raises(CommandError):
        run(str(tmp_path / "gone.db"))


def test_bar_rendering():
    """The bar shows the phase, the filled share and the counts."""
    assert render("write", 50, 200) == (
        "writing            [#######.......................]  25% 50/200"
    )
    assert render("write", 0, 0).endswith("done")


def test_bar_redraws_in_place_on_a_terminal():
    """On a terminal the bar redraws one line; off one it prints each finished phase once."""

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    bar = ProgressBar(terminal)
    bar("read", 0, 1)
    bar("read", 1, 1)
    bar.close()
    assert terminal.getvalue().startswith("\r")
    assert terminal.getvalue().endswith("1/1\n")
    log = io.StringIO()
    bar = ProgressBar(log)
    bar("write", 1, 2)
    bar("write", 2, 2)
    assert log.getvalue() == render("write", 2, 2) + "\n"


def test_the_page_lists_a_refused_runs_problems_as_the_command_prints_them(store, client_as):
    """Each problem of a refused run is the same line on the import page as on stderr."""
    rows = [make_row(content="A.", merged_from="[1,"), make_row(content="B.", merged_from="{}")]
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("sync_context_db", str(store(rows=rows)), stderr=err, stdout=io.StringIO())
    printed = [line.strip() for line in err.getvalue().splitlines() if "column" in line]
    assert len(printed) == 2
    assert SyncRun.objects.get().problem_lines == printed
    response = client_as("curator").get(reverse("interop:index"))
    for line in printed:
        assertContains(response, f"<li>{escape(line)}</li>", html=True)

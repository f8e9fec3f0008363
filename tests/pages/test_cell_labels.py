"""Every body cell a template writes into a data table names its column (`data-label`).

The demo walk (test_demo_pages.py) judges the cells of the pages it reaches, label and
wording; this reads the templates themselves, so a table the demo never shows (a synced
store's runs, a workspace, a session, a compare, an undo) is held to the same rule.
"""

import re
from pathlib import Path

from django.conf import settings

CELL = re.compile(r"<td\b(?:[^>{]|\{[^}]*\})*>")  # a cell's start tag, template tags in it


def test_every_cell_of_a_data_table_template_has_a_data_label():
    """A `<td>` in a template holding a `data-table` has a `data-label` or spans columns."""
    folders = [Path(folder) for engine in settings.TEMPLATES for folder in engine["DIRS"]]
    templates = [(folder, path) for folder in folders for path in sorted(folder.rglob("*.html"))]
    tabled = [(folder, path) for folder, path in templates if "data-table" in path.read_text()]
    unlabelled = [
        f"{path.relative_to(folder)}: {cell}"
        for folder, path in tabled
        for cell in CELL.findall(path.read_text())
        if "data-label=" not in cell and "colspan=" not in cell
    ]
    assert len(tabled) > 20, f"only {len(tabled)} templates with a data table were found"
    assert not unlabelled, "cells without a data-label:\n" + "\n".join(unlabelled)

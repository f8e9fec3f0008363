"""`manage.py screenshots DIR` saves the four pages at two widths in both themes."""

import pytest
from django.core.management import call_command

from memadmin.memories.services import memory_create

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_command_saves_every_page_at_both_widths_in_both_themes(people, project, tmp_path):
    """Sixteen PNGs: overview, memory, ledger and map; 390 and 1400 px; light and dark."""
    memory_create(project=project, category="OPS_RULES", content="Deploy Tuesdays.", actor="agent")
    call_command("screenshots", str(tmp_path))
    names = sorted(path.name for path in tmp_path.glob("*.png"))
    expected = sorted(
        f"{page}-{width}-{theme}.png"
        for page in ("overview", "memory", "ledger", "map")
        for width in (390, 1400)
        for theme in ("light", "dark")
    )
    assert names == expected
    assert all((tmp_path / name).read_bytes().startswith(b"\x89PNG") for name in names)

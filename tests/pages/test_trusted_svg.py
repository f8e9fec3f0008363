"""Pictures reach the page through one trusted path: `core.diagrams` escapes, nothing else trusts."""

from pathlib import Path

from django.conf import settings
from django.template import Context, Template

from memadmin.core.diagrams import Node, budget_bar_svg, composite_svg


def test_no_template_marks_anything_safe():
    """No template uses `|safe`: markup is trusted only where it is built (`Svg`)."""
    templates = Path(settings.BASE_DIR) / "templates"
    offenders = [
        str(path.relative_to(templates))
        for path in templates.rglob("*.html")
        if "|safe" in path.read_text()
    ]
    assert offenders == []


def test_a_diagram_is_inserted_as_it_is_and_its_text_stays_escaped():
    """A diagram renders unescaped in a template, while a label's markup stays escaped text."""
    head = Node(id=1, label="<script>alert(1)</script>", href="/memories/1/")
    picture = composite_svg("theme", head, [Node(id=2, label="a & b", href=None)], cursor=None)
    html = Template("{{ picture }}").render(Context({"picture": picture}))
    assert html.startswith("<svg")
    assert "<script>" not in html
    assert "&lt;script&gt;" in html
    bar = budget_bar_svg([("memory", 100)], 500, used=100)
    assert Template("{{ bar }}").render(Context({"bar": bar})).startswith("<svg")

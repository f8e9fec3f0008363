"""Every field's errors are shown one way, and every label finds its control through the field.

Read from the templates themselves: a field's errors go through `includes/field_errors.html`
(the id its control names in aria-describedby), never a loop or Django's list written on a
page; a label's `for` comes from the field (`id_for_label`), so a form prefix or `auto_id`
cannot leave it pointing at nothing.
"""

import re

from django.conf import settings

TEMPLATES = settings.BASE_DIR / "templates"
# A criteria field's own errors (too many items, a missing box count): not one form field's.
GROUP_ERRORS = "{% for error in group.errors %}"

FIELD_ERRORS_BY_HAND = [
    re.compile(r"\{%\s*for\s+[\w,\s]+\s+in\s+[\w.]+\.errors(\.items)?\s*%\}"),
    re.compile(r"\{\{\s*[\w.]+\.errors\s*(\||\}\})"),
]
LITERAL_LABEL_FOR = re.compile(r"""<label[^>]*\bfor=["']id_""")


def templates() -> dict[str, str]:
    """Return every project template's text by its name."""
    found = {
        path.relative_to(TEMPLATES).as_posix(): path.read_text()
        for path in TEMPLATES.rglob("*.html")
    }
    assert len(found) > 50, f"only {len(found)} templates found: the check saw too little"
    return found


def test_field_errors_are_rendered_only_by_the_one_include():
    """No template loops over a field's errors or prints Django's list of them itself."""
    failures = [
        f"{name}: {match.group(0)}"
        for name, body in templates().items()
        if name != "includes/field_errors.html"
        for pattern in FIELD_ERRORS_BY_HAND
        for match in pattern.finditer(body.replace(GROUP_ERRORS, ""))
    ]
    assert not failures, "\n".join(failures)


def test_no_label_names_a_control_by_a_written_id():
    """Every `<label for>` of a field is the field's own `id_for_label`."""
    failures = [
        f"{name}: {match.group(0)}"
        for name, body in templates().items()
        for match in LITERAL_LABEL_FOR.finditer(body)
    ]
    assert not failures, "\n".join(failures)


def test_the_include_shows_the_errors_under_the_id_django_names():
    """The include's id is the one Django's widgets put in aria-describedby for errors."""
    include = (TEMPLATES / "includes/field_errors.html").read_text()
    assert 'id="{{ field.auto_id }}_error"' in include

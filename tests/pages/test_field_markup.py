"""Every field's errors are shown one way, every label finds its control through the field,
and every hidden value is a form field's.

Read from the templates themselves: a field's errors go through `includes/field_errors.html`
(the id its control names in aria-describedby), never a loop or Django's list written on a
page; a label's `for` comes from the field (`id_for_label`), so a form prefix or `auto_id`
cannot leave it pointing at nothing; a hidden value is rendered from the field that the
receiving view validates it with, never an `<input type="hidden">` written on a page.
"""

import re
from collections import Counter

from django.conf import settings

TEMPLATES = settings.BASE_DIR / "templates"
# A criteria field's own errors (too many items, a missing box count): not one form field's.
GROUP_ERRORS = "{% for error in group.errors %}"

FIELD_ERRORS_BY_HAND = [
    re.compile(r"\{%\s*for\s+[\w,\s]+\s+in\s+[\w.]+\.errors(\.items)?\s*%\}"),
    re.compile(r"\{\{\s*[\w.]+\.errors\s*(\||\}\})"),
]
LITERAL_LABEL_FOR = re.compile(r"""<label[^>]*\bfor=["']id_""")

# A control written in a template: its tag, and in it a hidden type or a `hidden` attribute.
CONTROL_TAG = re.compile(r"<(input|textarea|select)\b[^>]*>", re.IGNORECASE)
HIDDEN = re.compile(r"""\btype\s*=\s*["']?hidden\b|\shidden(\s|=|/?>|\{)""", re.IGNORECASE)
NAME = re.compile(r"""\bname\s*=\s*["']([^"']*)["']""")
CSRF = "csrfmiddlewaretoken"  # the token, written where a tag's context has no {% csrf_token %}
# Django admin's own confirmation pattern, and Django's login `next`: Django's markup, not ours.
DJANGO_MARKUP = ("admin/", "registration/login.html")
# Hidden values still written by hand, by (template, name): how many. Each is to become a form
# field; take it off this list when it does. A new one is not to be added here.
STILL_BY_HAND: Counter = Counter()


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


def hidden_by_hand() -> Counter:
    """Return the hidden controls written in the templates, by (template, name): how many."""
    found = Counter()
    for name, body in templates().items():
        if name.startswith(DJANGO_MARKUP):
            continue
        for tag in CONTROL_TAG.finditer(body):
            if not HIDDEN.search(tag.group(0)):
                continue
            field = NAME.search(tag.group(0))
            if field is None or field.group(1) != CSRF:
                found[(name, field.group(1) if field else tag.group(0))] += 1
    return found


def test_no_template_writes_a_hidden_control_by_hand():
    """A hidden value comes from its form field (`{{ form.field }}`), the CSRF token aside."""
    found = hidden_by_hand()
    new = [f"{name}: {field} ({count})" for (name, field), count in (found - STILL_BY_HAND).items()]
    assert not new, "hidden controls written by hand, not rendered from a field:\n" + "\n".join(new)
    gone = [f"{name}: {field}" for (name, field) in STILL_BY_HAND - found]
    assert not gone, "now rendered from a field: take them off STILL_BY_HAND:\n" + "\n".join(gone)


def test_the_hidden_control_check_sees_every_spelling():
    """The check finds a hidden input in any attribute order and a control hidden by attribute."""
    written = [
        '<input type="hidden" name="a" value="1">',
        "<input name='b' type=hidden>",
        '<INPUT value="1" TYPE="HIDDEN" name="c">',
        '<textarea name="d" hidden aria-hidden="true"></textarea>',
        '<input name="e" hidden>',
        '<input name="f"{% if shut %} hidden{% endif %}>',
    ]
    caught = [tag for tag in written if HIDDEN.search(CONTROL_TAG.search(tag).group(0))]
    assert caught == written
    shown = ['<input type="text" name="hidden_notes">', '<input name="q" class="visually-hidden">']
    assert not [tag for tag in shown if HIDDEN.search(CONTROL_TAG.search(tag).group(0))]

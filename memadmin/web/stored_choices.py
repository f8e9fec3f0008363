"""Choice fields that offer the value already stored, even when today's choices lack it.

A synced store holds values the project's pack (or memadmin's word lists) may not define: a
category of another pack (OPS_RULES under the magic-context pack), a lower-case name, a
category the pack later dropped. A select that does not offer the stored value shows, and a
browser posts, its first choice: saving the form untouched would move the row. Every form
that edits something stored calls `keep_stored_choice` on its choice fields, so the stored
value is offered, selected and labelled as outside the choices, and posting it back keeps
it. Whether a value may be *chosen* is the services' rule (they check only what changes).
"""

from django import forms

OUTSIDE_PACK = "not in this project's pack"
OUTSIDE_VALUES = "not one of memadmin's values"


def outside_label(value: object, note: str = OUTSIDE_PACK) -> str:
    """Return the label of a stored value the choices lack: "OPS_RULES (not in ...)"."""
    return f"{value} ({note})"


def keep_stored_choice(
    field: forms.ChoiceField, value: object, *, note: str = OUTSIDE_PACK, empty: str = ""
):
    """Offer ``value`` in ``field``, labelled with ``note``, when its choices lack it.

    Nothing is added for a value the choices hold already (compared as the posted text
    would be). No stored value at all is offered only when ``empty`` labels it (a person
    with no role): as an empty first choice, which the field then takes.
    """
    offered = {str(key) for key, _ in _flat(field.choices)}
    if value in (None, ""):
        if empty and "" not in offered:
            field.choices = [("", empty), *field.choices]
            field.required = False
        return
    if str(value) in offered:
        return
    field.choices = [*field.choices, (value, outside_label(value, note))]


def keep_stored_choices(form: forms.BaseForm, stored: dict, notes: dict[str, str]) -> None:
    """Call `keep_stored_choice` on each of the form's fields named in ``notes``."""
    for name, note in notes.items():
        if name in form.fields:
            keep_stored_choice(form.fields[name], stored.get(name), note=note)


def _flat(choices):
    for key, label in choices:
        if isinstance(label, list | tuple):
            yield from label
        else:
            yield key, label

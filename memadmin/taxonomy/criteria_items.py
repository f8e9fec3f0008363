"""The list fields of a criteria form as Django formsets: one form per item.

`positive_examples` and `exclusions` hold one text per item, `negative_examples` an example
with the reason it does not belong. Each is a formset prefixed with the field's name, so an
item's box is `positive_examples-0-text` or `negative_examples-0-example`, and its management
form says how many boxes were sent. Unbound, a formset shows every item plus `EXTRA_ROWS`
empty boxes to add items (up to `MAX_ITEMS`); an emptied box removes its item, so no delete
box is needed.
"""

from django import forms

from .criteria_fields import LABELS, LIMITS, MAX_ITEMS

EXTRA_ROWS = 2
ROW_CAP = MAX_ITEMS + 10  # boxes read from a post; more items than MAX_ITEMS are refused anyway


class CriteriaTextField(forms.CharField):
    """A text box whose line breaks are stored as "\n", whatever the browser sent."""

    def to_python(self, value):
        text = super().to_python(value)
        return text.replace("\r\n", "\n").replace("\r", "\n")


def criteria_text_field(name: str, *, required: bool, rows: int | None) -> CriteriaTextField:
    """Return a box of the criteria field `name`: a textarea of `rows` rows, else one line."""
    limit = LIMITS[name]
    widget = forms.Textarea(attrs={"rows": rows}) if rows else forms.TextInput()
    messages = {
        "max_length": f"{LABELS[name]}: at most {limit} characters (this has %(show_value)d)."
    }
    if required:
        messages["required"] = f"{LABELS[name]} is required; it cannot be empty."
    return CriteriaTextField(
        required=required, max_length=limit, widget=widget, error_messages=messages
    )


class ItemForm(forms.Form):
    """One item of a list field: its text; an empty box is no item."""

    def __init__(self, *args, name: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["text"] = criteria_text_field(name, required=False, rows=2)

    def item(self) -> str:
        """Return the item's text ("" for no item); call after validation."""
        return self.cleaned_data.get("text", "")


class PairForm(forms.Form):
    """One negative example: the example and the reason it does not belong here."""

    def __init__(self, *args, name: str, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["example"] = criteria_text_field(name, required=False, rows=2)
        self.fields["reason"] = criteria_text_field(name, required=False, rows=2)

    def clean(self):
        cleaned = super().clean()
        example, reason = cleaned.get("example", ""), cleaned.get("reason", "")
        if example and not reason:
            self.add_error("reason", "Say why this does not belong here.")
        elif reason and not example:
            self.add_error("example", "Give the example this reason is about.")
        return cleaned

    def item(self) -> dict | None:
        """Return the pair, or None for two empty boxes; call after validation."""
        example = self.cleaned_data.get("example", "")
        return {"example": example, "reason": self.cleaned_data["reason"]} if example else None


def _initial(item: str | dict) -> dict:
    return item if isinstance(item, dict) else {"text": item}


class ItemFormSet(forms.BaseFormSet):
    """The boxes of one list field, prefixed with its name; its items once valid."""

    def __init__(self, data=None, *, name: str, items: list, **kwargs):
        label = LABELS[name]
        self.name = name
        super().__init__(
            data,
            prefix=name,
            # Bound, the post is all there is: an extra box equal to a stored item still counts.
            initial=None if data is not None else [_initial(item) for item in items],
            form_kwargs={"name": name},
            error_messages={
                "missing_management_form": f"{label}: the form did not say how many boxes it "
                "sent; reload the page and try again.",
                "too_many_forms": f"{label}: at most {MAX_ITEMS} items.",
            },
            **kwargs,
        )

    def items(self) -> list:
        """Return the filled items in box order; call once the formset is valid."""
        return [item for form in self.forms if (item := form.item())]


def _formset(form_class: type[forms.Form]) -> type[ItemFormSet]:
    return forms.formset_factory(
        form_class,
        formset=ItemFormSet,
        extra=EXTRA_ROWS,
        max_num=MAX_ITEMS,
        absolute_max=ROW_CAP,
        can_delete=False,
    )


TextItemFormSet = _formset(ItemForm)
PairFormSet = _formset(PairForm)

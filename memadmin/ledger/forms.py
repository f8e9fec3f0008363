"""The ledger page's controls: budget, mode, counter, tie-break and the row filters."""

from django import forms
from django.http import QueryDict
from django.utils.functional import cached_property
from django.utils.safestring import SafeString

from memadmin.core.ledger import BUDGET_MAX, BUDGET_MIN
from memadmin.core.ledger.model import ARCHIVED, EXPIRED, LAZY_DETAIL, OVER_BUDGET, SUPERSEDED
from memadmin.core.tokens import COUNTER_NAMES
from memadmin.web.number_fields import WholeNumberField

BUDGET_MESSAGE = f"The budget must be a whole number between {BUDGET_MIN} and {BUDGET_MAX} tokens."
REASONS = (OVER_BUDGET, LAZY_DETAIL, EXPIRED, ARCHIVED, SUPERSEDED)
MODES_SHOWN = ("plugin", "pack", "headers")  # the coverage table's order


def modes_to_assemble(mode: str) -> tuple[str, ...]:
    """Return the modes a page assembles: the stock plugin and headers always, pack when shown.

    Plugin mode's dropped rows and both modes' coverage are on every page; pack mode costs a
    third assembly of a large store, so it is made only when asked for.
    """
    return ("plugin", "headers", "pack") if mode == "pack" else ("plugin", "headers")


class BudgetInput(forms.NumberInput):
    """A budget control: never `required` in the page, so an empty box reaches the server's message."""

    def use_required_attribute(self, initial) -> bool:
        return False


class BudgetRangeInput(BudgetInput):
    input_type = "range"


# The two controls of the one `budget` field, slider first; both point at the help text.
BUDGET_CONTROLS = {
    "range": BudgetRangeInput(attrs={"id": "budget-range", "step": "1"}),
    "number": BudgetInput(attrs={"id": "budget-number", "step": "1"}),
}
BUDGET_HELP_ID = "budget-help"


def chosen_budget(data: QueryDict) -> str | None:
    """Return the budget asked for when the page sends both of its budget controls.

    The slider and the number box share the name `budget`, so a plain form sends both;
    the one that moved is the one that differs from `budget_was`, the budget shown.
    """
    values = [value.strip() for value in data.getlist("budget") if value.strip()]
    if not values:
        return None
    was = data.get("budget_was", "").strip()
    return next((value for value in values if value != was), values[0])


class LedgerForm(forms.Form):
    """What to assemble and which rows to show; anything left out takes its default."""

    budget = WholeNumberField(
        min_value=BUDGET_MIN,
        max_value=BUDGET_MAX,
        help_text=f"{BUDGET_MIN:,} to {BUDGET_MAX:,} tokens.",
        error_messages={
            "invalid": BUDGET_MESSAGE,
            "min_value": BUDGET_MESSAGE,
            "max_value": BUDGET_MESSAGE,
            "required": BUDGET_MESSAGE,
        },
    )
    mode = forms.ChoiceField(
        choices=[
            ("plugin", "plugin (what the stock magic-context plugin injects)"),
            ("pack", "pack (a plugin that reads the project's pack)"),
            ("headers", "headers"),
        ],
    )
    counter = forms.ChoiceField(
        choices=[(name, name) for name in COUNTER_NAMES],
        error_messages={
            "invalid_choice": (
                f"Unknown token counter %(value)s: the known counters are "
                f"{', '.join(COUNTER_NAMES)}."
            )
        },
    )
    tie_break = forms.ChoiceField(
        label="Tie-break",
        choices=[("recent", "recent (0.46 and later)"), ("id", "id (0.38)")],
    )
    decision = forms.ChoiceField(
        required=False,
        label="Rows",
        choices=[("", "all rows"), ("in", "injected"), ("out", "left out")],
    )
    reason = forms.ChoiceField(
        required=False, choices=[("", "any reason"), *((r, r) for r in REASONS)]
    )
    page = WholeNumberField(required=False, min_value=1)
    # The budget the page shows, sent back with both budget controls (`chosen_budget`); never
    # refused: what it holds only tells which control moved.
    budget_was = forms.CharField(
        required=False, widget=forms.HiddenInput(attrs={"id": "budget-was"})
    )
    find = WholeNumberField(
        required=False,
        min_value=1,
        label="Find memory",
        widget=forms.NumberInput(attrs={"placeholder": "id"}),
        error_messages={"invalid": "Find a memory by its id, a whole number like 473."},
    )

    def __init__(self, data: QueryDict, *, budget: int, counter: str):
        """Bind the request's values over the defaults: the project's budget, plugin mode."""
        values = {
            "budget": str(budget),
            "mode": "plugin",
            "counter": counter,
            "tie_break": "recent",
            "decision": "",
            "reason": "",
        }
        for name in ("mode", "counter", "tie_break", "decision", "reason", "page", "find"):
            if name in data:
                values[name] = (
                    data.get(name).strip().lstrip("#") if name == "find" else data.get(name)
                )
        asked = chosen_budget(data)
        if asked is not None:
            values["budget"] = asked
        values["budget_was"] = values["budget"]  # what the next request compares against
        super().__init__(values)

    @cached_property
    def budget_controls(self) -> dict[str, SafeString]:
        """Return the slider and the number box, and each for an htmx out-of-band swap.

        Keys `range` and `number`, and `oob_range` and `oob_number` (with `hx-swap-oob`).
        Both carry the field's min and max and the value as asked, even when refused. `was`
        and `oob_was` are the hidden `budget_was` beside them, which follows them.
        """
        field = self["budget"]
        # The help text, and the budget's error in the preview's list when it is refused.
        described = f"{BUDGET_HELP_ID} {field.auto_id}_error" if field.errors else BUDGET_HELP_ID
        controls = {}
        for kind, widget in BUDGET_CONTROLS.items():
            attrs = {
                **self.fields["budget"].widget_attrs(widget),
                "aria-describedby": described,
            }
            controls[kind] = field.as_widget(widget=widget, attrs=attrs)
            controls[f"oob_{kind}"] = field.as_widget(
                widget=widget, attrs={**attrs, "hx-swap-oob": "true"}
            )
        controls["was"] = self["budget_was"].as_widget()
        controls["oob_was"] = self["budget_was"].as_widget(attrs={"hx-swap-oob": "true"})
        return controls

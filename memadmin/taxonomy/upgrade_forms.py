"""Forms of the pack page: the pack to upgrade to, where removed categories' memories go, why.

The rules live in the planner (memadmin/taxonomy/upgrades.py); these forms only give the
plan's questions a box each.
"""

from collections.abc import Iterable

from django import forms

from memadmin.audit.reason_field import reason_field

MAP_PREFIX = "map-"


class UpgradeTargetForm(forms.Form):
    """The pack file to upgrade to and, once it is planned, one choice per removed category.

    `packs` are (name, label) pairs, one per pack file; `removed` the categories the plan
    removes and `writable` the new pack's writable categories, where their memories may go.
    """

    target = forms.ChoiceField(label="Upgrade to")

    def __init__(
        self,
        data=None,
        *,
        packs: Iterable[tuple[str, str]],
        removed: Iterable[str] = (),
        writable: Iterable[str] = (),
        auto_id: str | bool = "id_%s",
    ):
        super().__init__(data, auto_id=auto_id)
        self.asked = (list(packs), list(removed), list(writable))
        packs, removed, writable = self.asked
        self.fields["target"].choices = packs
        choices = [("", "— nowhere (allowed only if it holds no memories)")]
        choices += [(name, name) for name in writable]
        for name in removed:
            self.fields[MAP_PREFIX + name] = forms.ChoiceField(
                label=f"Memories of {name} go to", choices=choices, required=False
            )

    def carried(self) -> "UpgradeTargetForm":
        """Return these choices again, as chosen, rendered without ids.

        The apply form carries them hidden, so that the apply plans what the page shows; the
        plan's own form above it has the ids.
        """
        packs, removed, writable = self.asked
        data = self.data if self.is_bound else None
        return UpgradeTargetForm(
            data, packs=packs, removed=removed, writable=writable, auto_id=False
        )

    def map_fields(self) -> list[forms.BoundField]:
        """Return the bound fields asking where a removed category's memories go."""
        return [self[name] for name in self.fields if name.startswith(MAP_PREFIX)]

    def mapping(self) -> dict[str, str]:
        """Return {removed category: category its memories go to} as chosen (validated form)."""
        return {
            name.removeprefix(MAP_PREFIX): value
            for name, value in self.cleaned_data.items()
            if name.startswith(MAP_PREFIX) and value
        }


class UpgradeApplyForm(forms.Form):
    """The confirmation of a plan: its fingerprint, and why (kept on the audit event)."""

    # UpgradePlan.fingerprint of the plan shown: the upgrade is refused if the plan moved since.
    fingerprint = forms.CharField(max_length=64, widget=forms.HiddenInput)
    reason = reason_field(
        label="Why", help_text="Optional; kept with the upgrade in the audit trail."
    )

"""The workspace edit form: shared categories, each member's display name or removal, one addition."""

from django import forms

from memadmin.audit.reason_field import reason_field
from memadmin.core.contextdb.workspace_writing import MemberValues
from memadmin.core.ledger.reader import SHARE_CATEGORIES
from memadmin.projects.models import Project

from ..models import Workspace, WorkspaceMember


class WorkspaceForm(forms.Form):
    """What a curator changes about a workspace as a whole, and the one member they add."""

    version = forms.CharField(widget=forms.HiddenInput)
    share_categories = forms.MultipleChoiceField(
        choices=[(name, name) for name in SHARE_CATEGORIES],
        widget=forms.CheckboxSelectMultiple,
        required=False,
        label="Shared categories",
        help_text="Other members' shareable memories of these categories are injected.",
    )
    add_project = forms.ChoiceField(
        required=False,
        label="Project",
        error_messages={
            "invalid_choice": (
                "%(value)s is not a project of this store outside every workspace: "
                "only those can be added."
            )
        },
    )
    add_display_name = forms.CharField(
        required=False, max_length=500, label="Its display name", help_text="Default: its name."
    )
    add_display_path = forms.CharField(required=False, max_length=1000, label="Its display path")
    reason = reason_field(label="Why (optional)", help_text="")

    def __init__(self, *args, workspace: Workspace, **kwargs):
        super().__init__(*args, **kwargs)
        self.workspace = workspace
        taken = WorkspaceMember.objects.filter(workspace__store=workspace.store).values(
            "project_identity"
        )
        self.addable = {
            p.identity: p
            for p in Project.objects.filter(upstream_link__store=workspace.store)
            .exclude(identity__in=taken)
            .order_by("name", "identity")
        }
        self.fields["add_project"].choices = [("", "(none)")] + [
            (identity, f"{project.name} ({identity})") for identity, project in self.addable.items()
        ]


class MemberForm(forms.Form):
    """One current member: its display name (which sets its turn), or its removal."""

    identity = forms.CharField(widget=forms.HiddenInput, max_length=200)
    # Not required and not stripped here: a name the store holds empty, or with spaces around
    # it, is kept as it is; the service refuses a name this edit empties or makes shared.
    display_name = forms.CharField(
        max_length=500, label="Display name", required=False, strip=False
    )
    remove = forms.BooleanField(required=False, label="Remove")


def _member_formset(count: int) -> type[forms.BaseFormSet]:
    """Return the formset of a workspace with ``count`` members: one form each, never more.

    A post with more rows than that (a page made before a member left, or a forged count)
    is refused as too many forms, not read (Django would otherwise build up to 2,000).
    """
    return forms.formset_factory(MemberForm, extra=0, max_num=count, absolute_max=count)


def too_many_rows(formset: forms.BaseFormSet) -> bool:
    """Say whether the formset was refused for holding more rows than the workspace has members."""
    return any(error.code == "too_many_forms" for error in formset.non_form_errors().as_data())


def edit_forms(workspace: Workspace, data=None) -> tuple[WorkspaceForm, forms.BaseFormSet]:
    """Return the edit form and the members' formset, bound to ``data`` or filled from the rows."""
    members = list(workspace.members.all())
    initial = {
        "version": workspace.digest(),
        "share_categories": list(workspace.share_categories),
    }
    member_initial = [
        {"identity": m.project_identity, "display_name": m.display_name or ""} for m in members
    ]
    member_forms = _member_formset(len(members))
    if data is None:
        return (
            WorkspaceForm(workspace=workspace, initial=initial),
            member_forms(prefix="members", initial=member_initial),
        )
    return (
        WorkspaceForm(data, workspace=workspace),
        member_forms(data, prefix="members", initial=member_initial),
    )


def desired_members(workspace: Workspace, form: WorkspaceForm, formset) -> dict[str, MemberValues]:
    """Return the member set the valid forms ask for: identity to display name and path.

    A member the formset does not mention stays as it is; an identity that is not a member
    is ignored (the formset only renames or removes members).
    """
    current = {m.project_identity: m for m in workspace.members.all()}
    members = {
        identity: MemberValues(m.display_name or "", m.display_path or "")
        for identity, m in current.items()
    }
    for row in formset.cleaned_data:
        identity = row.get("identity")
        if identity not in current:
            continue
        if row.get("remove"):
            members.pop(identity, None)
        else:
            members[identity] = MemberValues(
                row["display_name"], current[identity].display_path or ""
            )
    added = form.cleaned_data.get("add_project")
    if added:
        name = form.cleaned_data.get("add_display_name") or form.addable[added].name
        members[added] = MemberValues(name, form.cleaned_data.get("add_display_path") or "")
    return members

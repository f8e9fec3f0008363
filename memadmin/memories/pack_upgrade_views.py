"""The pack page: a project's pack, the pack files on offer, an upgrade's plan and its apply.

The page plans with `pack_upgrade_plan` (a plain GET form, so anyone may read a plan, as
`manage.py pack upgrade` without --apply) and applies with `pack_upgrade`, as the command
does with --apply. The confirmation carries the plan's fingerprint: if the project or the
pack file changed since the plan was shown, nothing is written and the plan as it is now is
shown, the reason typed kept. An upgrade moves memories, so the page is the memories',
served at the criteria area's address (`taxonomy:pack`, `criteria_urls.py`).
"""

from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from memadmin.accounts.roles import role_required
from memadmin.core.packs import PackError, PackFile, PackNotFoundError, PackSpec, pack_files
from memadmin.projects.models import Project
from memadmin.projects.store import StoreRefused
from memadmin.taxonomy.criteria_fields import LABELS, field_text
from memadmin.taxonomy.editor import MovedField
from memadmin.taxonomy.services import pack_load
from memadmin.taxonomy.upgrade_forms import UpgradeApplyForm, UpgradeTargetForm
from memadmin.taxonomy.upgrades import NOTHING, UpgradePlan
from memadmin.taxonomy.views import project_or_404
from memadmin.web.hidden_fields import carry
from memadmin.web.htmx_request import HtmxHttpRequest

from .pack_upgrade_services import (
    StaleUpgradePlan,
    UpgradeRefused,
    pack_upgrade,
    pack_upgrade_plan,
)

PAGE = "taxonomy/upgrade.html"


@dataclass(frozen=True)
class Planned:
    """What the page shows of one request for a plan."""

    form: UpgradeTargetForm
    spec: PackSpec | None = None
    plan: UpgradePlan | None = None
    pack_error: str = ""

    @property
    def ok(self) -> bool:
        """Return True if a plan was made from valid choices."""
        return self.plan is not None and self.form.is_valid()


def _choices(files: list[PackFile]) -> list[tuple[str, str]]:
    return [
        (f.name, f"{f.name} {f.spec.version}" if f.spec else f"{f.name} (broken)") for f in files
    ]


def _flagged_rows(plan: UpgradePlan) -> list[tuple[str, list[MovedField]]]:
    """Return each flagged override with its old default, new default and override per field."""
    return [
        (
            flagged.name,
            [
                MovedField(
                    LABELS[name],
                    field_text(flagged.old_default, name),
                    field_text(flagged.new_default, name),
                    field_text(flagged.override, name),
                )
                for name in flagged.fields
            ],
        )
        for flagged in plan.flagged
    ]


def _plan(project: Project, data, files: list[PackFile]) -> Planned:
    """Return the plan for the target and mapping in ``data`` (None: nothing asked yet)."""
    packs = _choices(files)
    form = UpgradeTargetForm(data, packs=packs)
    if data is None or not form.is_valid():
        return Planned(form)
    try:
        spec = pack_load(form.cleaned_data["target"])
    except (PackError, PackNotFoundError) as error:
        return Planned(form, pack_error=str(error))
    plan = pack_upgrade_plan(project=project, spec=spec, mapping={})
    if plan.removed:
        # The removed categories are known now: ask where each one's memories go.
        form = UpgradeTargetForm(
            data, packs=packs, removed=plan.removed, writable=spec.writable_names()
        )
        if form.is_valid() and form.mapping():
            plan = pack_upgrade_plan(project=project, spec=spec, mapping=form.mapping())
    return Planned(form, spec=spec, plan=plan)


def _render(
    request: HtmxHttpRequest,
    project: Project,
    planned: Planned,
    files: list[PackFile],
    *,
    apply: UpgradeApplyForm | None = None,
    refusal: str = "",
    status: int = 200,
) -> HttpResponse:
    plan = planned.plan
    apply = apply or UpgradeApplyForm()
    if plan is not None:
        # The plan shown is the one an apply confirms, whatever a refused post confirmed.
        carry(apply, "fingerprint", plan.fingerprint())
    context = {
        "project": project,
        "files": files,
        "form": planned.form,
        "spec": planned.spec,
        "plan": plan,
        "pack_error": planned.pack_error,
        "kept": [n for n in planned.spec.names() if n not in plan.added] if plan else [],
        "flagged": _flagged_rows(plan) if plan else [],
        "nothing": plan is not None and plan.kind == NOTHING,
        "apply": apply,
        "carried": planned.form.carried(),
        "refusal": refusal,
    }
    return render(request, PAGE, context, status=status)


@require_GET
@role_required("viewer")
def pack_page(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Show the project's pack and the pack files; given a target, the upgrade's plan.

    Planning writes nothing, so viewers may read a plan; applying it needs a curator.
    """
    project = project_or_404(project_pk)
    files = pack_files(settings.PACKS_DIR)
    planned = _plan(project, request.GET or None, files)
    status = 400 if planned.form.errors or planned.pack_error else 200
    return _render(request, project, planned, files, status=status)


@require_POST
@role_required("curator")
def pack_apply(request: HtmxHttpRequest, project_pk: int) -> HttpResponse:
    """Apply the plan shown, as confirmed; refused, the plan is shown again as it is now."""
    project = project_or_404(project_pk)
    files = pack_files(settings.PACKS_DIR)
    planned = _plan(project, request.POST, files)
    apply = UpgradeApplyForm(request.POST)
    if not (planned.ok and apply.is_valid()):
        return _render(request, project, planned, files, apply=apply, status=400)
    try:
        plan = pack_upgrade(
            project=project,
            spec=planned.spec,
            mapping=planned.form.mapping(),
            actor=request.user,
            reason=apply.cleaned_data["reason"],
            fingerprint=apply.cleaned_data["fingerprint"],
        )
    except StaleUpgradePlan as stale:
        # Planned again, so the choices asked match the plan as it is now.
        planned = _plan(project, request.POST, files)
        return _render(
            request, project, planned, files, apply=apply, refusal=stale.messages[0], status=409
        )
    except UpgradeRefused:
        # The plan shown held refusals (the page offers no apply then): show it again.
        return _render(request, project, planned, files, apply=apply, status=400)
    except StoreRefused as refused:
        # The project's store refused the moves: nothing was written on either side.
        return _render(
            request, project, planned, files, apply=apply, refusal=refused.messages[0], status=409
        )
    if plan.kind == NOTHING:
        messages.info(request, f"Nothing to do: {project.name} already runs {plan.new_pack}.")
    else:
        messages.success(request, f"{project.name} now runs {plan.new_pack}.")
    return redirect(f"{reverse('taxonomy:index')}?project={project.pk}")

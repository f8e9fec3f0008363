"""The stale-header queue's tags: the count in the navigation, each membership sentence, and
each card's "mark synced" form.

`{% load headermap_stale %}{% stale_header_count %}`; `{% membership_sentence change %}`;
`{% mark_synced_form entry kept_note as form %}`, `{% header_draft drafts entry as draft %}`
and `{% draft_form entry as form %}`.
"""

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from memadmin.headermap.forms import MarkSyncedForm
from memadmin.headermap.stale_membership import DetailRef, MembershipChange
from memadmin.headermap.stale_selectors import stale_header_count as count_stale

register = template.Library()


@register.inclusion_tag("headermap/includes/stale_badge.html")
def stale_header_count() -> dict:
    """Render how many headers are stale, linking to their queue (one query)."""
    return {"stale_count": count_stale()}


def _member(member: DetailRef) -> SafeString:
    if not member.exists:
        return format_html("#{} (deleted)", member.display_id)
    url = reverse("memories:detail", args=[member.pk])
    return format_html('<a href="{}">#{}</a>', url, member.display_id)


@register.simple_tag
def membership_sentence(change: MembershipChange) -> SafeString:
    """Render the sentence `MembershipChange.summary` says, its memories and composite linked.

    A deleted memory is named by its id, "(deleted)"; a deleted composite by its name, unlinked.
    """
    name = change.composite_name(format_html)
    if change.composite_exists:
        url = reverse("composites:detail", args=[change.composite_pk])
        name = format_html('<a href="{}">{}</a>', url, name)
    members = format_html_join(", ", "{}", ((_member(member),) for member in change.members))
    return change.sentence(format_html, name=name, members=members)


@register.simple_tag
def mark_synced_form(entry, kept_note=None) -> MarkSyncedForm:
    """Return the entry's "mark synced" form, holding the note a refusal kept for it."""
    kept = kept_note or {}
    note = kept.get("reason", "") if kept.get("header") == entry.header.pk else ""
    return MarkSyncedForm.for_entry(entry, note=note)


@register.simple_tag
def header_draft(drafts, entry):
    """Return the entry's draft (`drafts.HeaderDraft`) from the page's drafts, or None."""
    return (drafts or {}).get(entry.header.pk)


@register.simple_tag
def draft_form(entry) -> MarkSyncedForm:
    """Return the entry's "accept the draft" form."""
    return MarkSyncedForm.for_draft(entry)

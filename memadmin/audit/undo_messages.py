"""A success message that carries an Undo button for the change it reports.

The button is a POST form to the change's undo address (`overview:undo`, or another given);
the layout draws it from the message's tag, so any view can offer an undo without knowing
how it is carried out.
"""

from django.contrib import messages
from django.http import HttpRequest
from django.urls import reverse

UNDO_TAG = "undo:"


def undo_message(request: HttpRequest, text: str, *, change_id=None, url: str = "") -> None:
    """Add a success message whose Undo button undoes the change (or posts to `url`)."""
    target = url or (reverse("overview:undo", args=[change_id]) if change_id else "")
    messages.success(request, text, extra_tags=UNDO_TAG + target if target else "")


def undo_target(message) -> str:
    """Return where a message's Undo button posts, or "" if it has none."""
    tags = getattr(message, "extra_tags", "") or ""
    return tags[len(UNDO_TAG) :] if tags.startswith(UNDO_TAG) else ""

"""A success message that carries an Undo button for the change it reports.

The button is a POST form to the change's undo address (`overview:undo`, or another given);
the layout draws it from the message's tag, so any view can offer an undo without knowing
how it is carried out.
"""

from django.contrib import messages
from django.http import HttpRequest
from django.urls import reverse

UNDO_TAG = "undo:"
BY_ROW_TAG = "undo-by-row"


def undo_message(
    request: HttpRequest, text: str, *, change_id=None, url: str = "", by_row: bool = False
) -> None:
    """Add a success message whose Undo button undoes the change (or posts to `url`).

    `by_row` (a change of several memories, as a bulk action makes) adds "Undo some…", the
    change's page listing each memory with its own Undo.
    """
    target = url or (reverse("overview:undo", args=[change_id]) if change_id else "")
    tags = UNDO_TAG + target if target else ""
    if tags and by_row and change_id:
        tags += " " + BY_ROW_TAG
    messages.success(request, text, extra_tags=tags)


def _tags(message) -> list[str]:
    return (getattr(message, "extra_tags", "") or "").split()


def undo_target(message) -> str:
    """Return where a message's Undo button posts, or "" if it has none."""
    first = next(iter(_tags(message)), "")
    return first[len(UNDO_TAG) :] if first.startswith(UNDO_TAG) else ""


def undo_by_row(message) -> bool:
    """Return True if the message also offers its change's memories one by one."""
    return BY_ROW_TAG in _tags(message)

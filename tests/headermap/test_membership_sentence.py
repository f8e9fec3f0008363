"""A membership change says one sentence: as text for the command, linked on the stale page."""

import pytest
from django.urls import reverse
from django.utils.html import strip_tags

from memadmin.headermap.stale_membership import DetailRef, MembershipChange
from memadmin.headermap.templatetags.headermap_stale import membership_sentence


def change(kind: str, *, title: str = "Release", exists: bool = True, times: int = 1, members=()):
    return MembershipChange(
        kind=kind,
        composite_pk=5,
        composite_type="sequence",
        composite_title=title,
        composite_exists=exists,
        members=tuple(members),
        at=0,
        actor="historian",
        reason="",
        times=times,
    )


@pytest.mark.parametrize(
    ("made", "text"),
    [
        (change("joined", members=[DetailRef(1, 11)]), "#11 joined the sequence 'Release'"),
        (change("left", members=[DetailRef(1, 11), DetailRef(2, 12)]),
         "#11, #12 left the sequence 'Release'"),
        (change("moved", members=[DetailRef(1, 11)], times=3),
         "#11 moved within the sequence 'Release' (3 moves)"),
        (change("made", title="", members=[DetailRef(1, 11)]), "The sequence #5 was made with #11"),
        (change("made"), "The sequence 'Release' was made"),
        (change("deleted", exists=False, members=[DetailRef(1, 11)]),
         "The sequence 'Release' was deleted; #11 left with it"),
    ],
)  # fmt: skip
def test_the_page_says_the_commands_sentence_with_links(made, text):
    """The stale page's sentence is the summary the command prints, its parts linked."""
    assert made.summary == text
    assert strip_tags(membership_sentence(made)) == text


def test_the_page_links_what_exists_and_escapes_the_title():
    """Live memories and composites are links; a deleted one is named; a title is text."""
    made = change(
        "deleted",
        title="<b>R&D</b>",
        exists=False,
        members=[DetailRef(1, 11), DetailRef(2, 12, exists=False)],
    )
    assert membership_sentence(made) == (
        "The sequence '&lt;b&gt;R&amp;D&lt;/b&gt;' was deleted; "
        f'<a href="{reverse("memories:detail", args=[1])}">#11</a>, #12 (deleted) left with it'
    )
    joined = change("joined", members=[DetailRef(1, 11)])
    assert membership_sentence(joined) == (
        f'<a href="{reverse("memories:detail", args=[1])}">#11</a> joined the sequence '
        f"<a href=\"{reverse('composites:detail', args=[5])}\">'Release'</a>"
    )

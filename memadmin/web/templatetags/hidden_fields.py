"""`{% load hidden_fields %}{% back_here %}`: the hidden `next` of a plain POST form, from its field.

The form's view goes back to that page after the post (`BackForm`); `{% back_here path %}`
names another page of this site instead of the one being shown.
"""

from django import template
from django.utils.safestring import SafeString

from memadmin.web.hidden_fields import BackForm

register = template.Library()


@register.simple_tag(takes_context=True)
def back_here(context, path: str = "") -> SafeString:
    """Render BackForm's `next` naming `path`, else the page being shown (its query kept)."""
    return BackForm(initial={"next": path or context["request"].get_full_path()})[
        "next"
    ].as_widget()

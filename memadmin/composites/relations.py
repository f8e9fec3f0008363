"""The composites' side of what the memories app does to many memories at once.

Registered in `memories.relation_hooks` by `CompositesConfig.ready`: merges repoint the
composites that cite their sources, and the memory list's bulk action adds members.
"""

from .models import Composite, CompositeMember
from .repoint_services import composites_repoint, composites_restore
from .services import composite_member_add, refuse_archived_head


class CompositeRelations:
    repoint = staticmethod(composites_repoint)
    restore = staticmethod(composites_restore)
    refuse_archived_head = staticmethod(refuse_archived_head)
    add_members = staticmethod(composite_member_add)

    @staticmethod
    def cite(memory) -> bool:
        """Return True if a composite has the memory as its head or a member."""
        return (
            Composite.objects.filter(head=memory).exists()
            or CompositeMember.objects.filter(member=memory).exists()
        )

    @staticmethod
    def composites():
        """Return the composites a bulk add may pick from, with what the pick shows."""
        return Composite.objects.select_related("head", "project")

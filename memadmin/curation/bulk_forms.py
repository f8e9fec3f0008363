"""The memory list's bulk form as its actions read it: an add picks from the composites."""

from memadmin.composites.selectors import pickable_composites
from memadmin.memories.bulk_forms import BulkForm


class BulkActionForm(BulkForm):
    """`BulkForm`, its composite picked from every composite (the list only shows the form)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, composites=pickable_composites(), **kwargs)

"""The injection ledger: which memories a budgeted injection carries, and why each is in or out.

``assemble(...)`` reproduces magic-context's injection exactly (``mode="plugin"``) or builds
Proposal 3's table of contents of header blocks (``mode="headers"``); ``compare_modes(...)``
does both at one budget. To assemble one store several times (both modes, several budgets),
prepare it once (``PreparedStore(memories, composites, now_ms=...)``) and call
``assemble_prepared(store, ...)``; ``store.texts()`` names every text those assemblies
count (``store.counted()`` the same, as memories, headers and other texts).
``read_for_mode(...)`` and ``assemble_read(...)`` read the rows as the mode's plugin
does first (``reader``) and share a workspace's memories (``workspace``). Plain data in,
plain data out: no Django here.
"""

from .as_plugin import (
    MemberShare,
    ReadStore,
    assemble_read,
    member_shares,
    read_for_mode,
    read_for_modes,
)
from .assembly import assemble, assemble_prepared, compare_modes
from .model import (
    BUDGET_DEFAULT,
    BUDGET_MAX,
    BUDGET_MIN,
    Coverage,
    Kind,
    LedgerComposite,
    LedgerError,
    LedgerMemory,
    LedgerResult,
    LedgerRow,
    Mode,
    ModeComparison,
    Reason,
    TieBreak,
    TokenCounter,
)
from .prepared import PreparedStore
from .reader import CATEGORY_PRIORITY, PLUGIN_ASSUMED, DroppedRow, read_rows
from .render import PRIORITY_CATEGORIES
from .rows import LedgerRows
from .workspace import Workspace, WorkspaceMember, member_order, parse_share_categories

__all__ = [
    "BUDGET_DEFAULT",
    "BUDGET_MAX",
    "BUDGET_MIN",
    "CATEGORY_PRIORITY",
    "PLUGIN_ASSUMED",
    "PRIORITY_CATEGORIES",
    "Coverage",
    "DroppedRow",
    "Kind",
    "LedgerComposite",
    "LedgerError",
    "LedgerMemory",
    "LedgerResult",
    "LedgerRow",
    "LedgerRows",
    "MemberShare",
    "Mode",
    "ModeComparison",
    "PreparedStore",
    "ReadStore",
    "Reason",
    "TieBreak",
    "TokenCounter",
    "Workspace",
    "WorkspaceMember",
    "assemble",
    "assemble_prepared",
    "assemble_read",
    "compare_modes",
    "member_order",
    "member_shares",
    "parse_share_categories",
    "read_for_mode",
    "read_for_modes",
    "read_rows",
]

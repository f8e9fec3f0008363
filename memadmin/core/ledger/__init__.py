"""The injection ledger: which memories a budgeted injection carries, and why each is in or out.

``assemble(...)`` reproduces magic-context's injection exactly (``mode="plugin"``) or builds
Proposal 3's table of contents of header blocks (``mode="headers"``); ``compare_modes(...)``
does both at one budget. To assemble one store several times (both modes, several budgets),
prepare it once (``PreparedStore(memories, composites, now_ms=...)``) and call
``assemble_prepared(store, ...)``; ``store.texts()`` names every text those assemblies
count. Plain data in, plain data out: no Django here.
"""

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
from .render import PRIORITY_CATEGORIES
from .rows import LedgerRows

__all__ = [
    "BUDGET_DEFAULT",
    "BUDGET_MAX",
    "BUDGET_MIN",
    "PRIORITY_CATEGORIES",
    "Coverage",
    "Kind",
    "LedgerComposite",
    "LedgerError",
    "LedgerMemory",
    "LedgerResult",
    "LedgerRow",
    "LedgerRows",
    "Mode",
    "ModeComparison",
    "PreparedStore",
    "Reason",
    "TieBreak",
    "TokenCounter",
    "assemble",
    "assemble_prepared",
    "compare_modes",
]

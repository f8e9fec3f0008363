"""The injection ledger: which memories a budgeted injection carries, and why each is in or out.

``assemble(...)`` reproduces magic-context's injection exactly (``mode="plugin"``) or builds
Proposal 3's table of contents of header blocks (``mode="headers"``); ``compare_modes(...)``
does both at one budget. Plain data in, plain data out: no Django here.
"""

from .assembly import assemble, compare_modes
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
from .render import PRIORITY_CATEGORIES

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
    "Mode",
    "ModeComparison",
    "Reason",
    "TieBreak",
    "TokenCounter",
    "assemble",
    "compare_modes",
]

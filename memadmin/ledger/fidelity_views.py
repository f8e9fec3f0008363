"""What the ledger page says about the plugin it assumes: dropped rows, workspace, members."""

from memadmin.core.ledger import LedgerResult
from memadmin.core.ledger.reader import never_injected_summary as summary_sentence

from .selectors import LedgerPreview

DROPPED_SHOWN = 200  # the page lists this many dropped rows; the count covers them all


def fidelity_context(preview: LedgerPreview, result: LedgerResult) -> dict:
    """Return the ledger page's context about the plugin its figures assume."""
    workspace = preview.workspace
    return {
        "assumes": result.assumes,
        "dropped": result.dropped[:DROPPED_SHOWN],
        "dropped_count": len(result.dropped),
        "never_injected": (
            summary_sentence(result.dropped, pack=result.mode == "pack")
            if result.mode != "headers"
            else ""
        ),
        "stock_never_injected": summary_sentence(preview.results["plugin"].dropped),
        "workspace_warnings": workspace.warnings if workspace else (),
        "workspace_row": workspace.row if workspace else None,
        "member_shares": preview.member_shares(result.mode),
    }

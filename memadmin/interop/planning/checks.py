"""Check the rows the store reader accepted against what a memadmin memory can hold."""

from memadmin.core.contextdb import RowProblem, UpstreamMemory
from memadmin.core.patterns import MD5_HEX, PROJECT_IDENTITY
from memadmin.memories.services import CONTENT_MAX_CHARS

CATEGORY_MAX = 40
SESSION_ID_MAX = 200


def row_problems(memory: UpstreamMemory) -> list[RowProblem]:
    """Return what keeps a row the reader accepted from becoming a memadmin memory."""
    content, digest, category = memory.content, memory.normalized_hash, memory.category
    session = memory.source_session_id
    if (
        content
        and not content.isspace()
        and len(content) <= CONTENT_MAX_CHARS
        and (digest is None or MD5_HEX.fullmatch(digest))
        and 0 < len(category) <= CATEGORY_MAX
        and (session is None or len(session) <= SESSION_ID_MAX)
        and (memory.seen_count or 0) >= 0
        and (memory.retrieval_count or 0) >= 0
    ):
        return []
    problems = []

    def problem(column: str, text: str) -> None:
        problems.append(RowProblem("memories", memory.id, column, text))

    if not content or content.isspace():
        problem("content", "is empty; a memory needs some text")
    elif len(content) > CONTENT_MAX_CHARS:
        problem(
            "content",
            f"is {len(content)} characters long; a memory holds at most {CONTENT_MAX_CHARS}",
        )
    if digest is not None and not MD5_HEX.fullmatch(digest):
        problem("normalized_hash", f"{digest[:40]!r} is not an MD5 hex digest")
    if not 0 < len(category) <= CATEGORY_MAX:
        problem("category", f"{category[:60]!r} is not 1 to {CATEGORY_MAX} characters")
    if session is not None and len(session) > SESSION_ID_MAX:
        problem("source_session_id", f"is longer than {SESSION_ID_MAX} characters")
    for column in ("seen_count", "retrieval_count"):
        value = getattr(memory, column)
        if value is not None and value < 0:
            problem(column, f"{value} is negative")
    return problems


def identity_problem(identity: str, row_id: int) -> RowProblem | None:
    """Return the problem with a project identity, or None when upstream could have written it."""
    if PROJECT_IDENTITY.fullmatch(identity) and len(identity) <= SESSION_ID_MAX:
        return None
    return RowProblem(
        "memories",
        row_id,
        "project_path",
        f"{identity[:60]!r} is not a project identity ('git:<root-commit-sha>' or 'dir:<hash>')",
    )

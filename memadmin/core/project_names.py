"""Name a project as its user knows it, from what the store says of it.

A project's identity is upstream's `git:<root-commit-sha>` or `dir:<hash>`, not a name.
The store names a project only in its workspaces: each `workspace_members` row carries a
`display_name` and a `display_path` (the project's folder). No other table of the store
holds a name or a folder: `session_meta` has no directory, and `memory_mutation_log`'s
`project_path` is the identity again. Without a name, the identity is shortened.
"""

import re
from collections.abc import Iterable

SHORT_HASH_CHARS = 12
_SEPARATORS = re.compile(r"[\\/]+")


def short_identity(identity: str) -> str:
    """Return the identity with its hash cut to 12 characters: `git:0a1b2c3d4e5f`."""
    kind, _, rest = identity.partition(":")
    return f"{kind}:{rest[:SHORT_HASH_CHARS]}" if len(rest) > SHORT_HASH_CHARS else identity


def folder_name(path: str | None) -> str:
    """Return the last folder of a path (`/home/ana/src/billing/` gives `billing`), or ""."""
    if not path:
        return ""
    parts = [part for part in _SEPARATORS.split(path.strip()) if part]
    return parts[-1] if parts else ""


def name_from_members(members: Iterable[tuple[str | None, str | None]]) -> str:
    """Return the name the store gives a project, or "" when it gives none.

    ``members`` are the project's workspace rows as (display_name, display_path), in the
    order to trust them (lowest workspace first, as upstream picks a project's workspace).
    The first display name wins; else the folder of the first display path.
    """
    members = list(members)
    for display_name, _ in members:
        if display_name and display_name.strip():
            return display_name.strip()
    for _, display_path in members:
        folder = folder_name(display_path)
        if folder:
            return folder
    return ""

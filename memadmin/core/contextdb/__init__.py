"""Read a real magic-context store (``context.db``) and write its one shared key/value table.

Plain Python over the standard ``sqlite3`` module: nothing here knows about Django.
"""

from memadmin.core.contextdb.errors import StoreError
from memadmin.core.contextdb.opening import open_readonly
from memadmin.core.contextdb.reading import (
    inspect_store,
    integrity_problems,
    read_memories,
    read_store,
    session_prompt_hashes,
)
from memadmin.core.contextdb.records import (
    RowProblem,
    StoreInfo,
    StoreRead,
    UpstreamMemory,
    UpstreamSession,
)
from memadmin.core.contextdb.rules import (
    MEMORY_SCOPES,
    MEMORY_STATUSES,
    REQUIRED_MEMORY_COLUMNS,
    SOURCE_TYPES,
    VERIFICATION_STATUSES,
)
from memadmin.core.contextdb.store_meta import write_store_meta

__all__ = [
    "MEMORY_SCOPES",
    "MEMORY_STATUSES",
    "REQUIRED_MEMORY_COLUMNS",
    "SOURCE_TYPES",
    "VERIFICATION_STATUSES",
    "RowProblem",
    "StoreError",
    "StoreInfo",
    "StoreRead",
    "UpstreamMemory",
    "UpstreamSession",
    "inspect_store",
    "integrity_problems",
    "open_readonly",
    "read_memories",
    "read_store",
    "session_prompt_hashes",
    "write_store_meta",
]

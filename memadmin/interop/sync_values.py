"""The values tuple a sync compares rows by: the Memory fields it mirrors, and their positions.

A values tuple holds the project identity first, then `FIELDS` in order, then the references
(`superseded_by`, `merged_from`) as upstream ids.
"""

# The Memory fields a sync mirrors from upstream, in tuple order (references come after).
FIELDS = (
    "category",
    "content",
    "normalized_hash",
    "importance",
    "scope",
    "shareable",
    "source_session_id",
    "source_type",
    "seen_count",
    "retrieval_count",
    "first_seen_at",
    "created_at",
    "updated_at",
    "last_seen_at",
    "last_retrieved_at",
    "status",
    "expires_at",
    "verification_status",
    "verified_at",
    "classified_at",
    "metadata",
    "upstream_gone_at",
)
# Positions inside a values tuple: the project identity first, then FIELDS, then references.
PROJECT = 0
CATEGORY = 1
NORMALIZED_HASH = 3
GONE_AT = 1 + FIELDS.index("upstream_gone_at")
SUPERSEDED = 1 + len(FIELDS)
MERGED = SUPERSEDED + 1
VALUE_NAMES = ("project", *FIELDS, "superseded_by", "merged_from")

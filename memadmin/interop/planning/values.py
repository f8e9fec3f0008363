"""The values tuple a sync compares rows by: the Memory fields it mirrors, and their positions.

A values tuple holds the project identity first, then `FIELDS` in order, then the references
(`superseded_by`, `merged_from`) as upstream ids.
"""

from memadmin.core.contextdb.rules import MEMORY_RULES

# The store columns a sync does not copy into a Memory field as they are: the row's identity
# and project (kept as upstream_id and the project), its references (resolved to memories
# after), and upstream's mural cues.
NOT_MIRRORED = frozenset(
    {
        "id",
        "project_path",
        "superseded_by_memory_id",
        "merged_from",
        "mural_cue",
        "mural_cue_hash",
        "mural_cue_at",
        "mural_cue_rejection_count",
    }
)
# The Memory fields a sync mirrors from upstream, in tuple order (references come after):
# the store's memory columns in the order the column rules read them (their Memory
# attribute: metadata_json fills metadata), then when memadmin saw the row leave the store.
FIELDS = (
    *(rule.attribute for rule in MEMORY_RULES if rule.name not in NOT_MIRRORED),
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

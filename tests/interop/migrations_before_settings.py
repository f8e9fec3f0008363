"""Settings of a process that migrates interop as an install made before the squash did.

The app's migrations `0001_initial` to `0009_merge_workspace_edits` are squashed into
`0001_squashed_0009_merge_workspace_edits`; the files it replaces are kept, with those that
follow, in `tests/interop/migrations_before/`, which MIGRATION_MODULES selects here.
"""

from memadmin.settings.local import *  # noqa: F403

MIGRATION_MODULES = {"interop": "tests.interop.migrations_before"}

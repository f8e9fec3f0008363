"""The shapes of upstream's values, for every check that reads them: one home each."""

import re

# A content digest as upstream stores it (`normalized_hash`, `system_prompt_hash`): md5 in hex.
MD5_HEX = re.compile(r"[0-9a-f]{32}")
# A project identity: `git:<root-commit-sha>` or `dir:<hash>`.
PROJECT_IDENTITY = re.compile(r"(git|dir):\S+")

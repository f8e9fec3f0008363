"""`python -m memadmin ...` runs the `memadmin` command (memadmin/cli.py)."""

import sys

from memadmin.cli import main

sys.exit(main())

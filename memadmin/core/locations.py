"""Where memadmin finds its files, from a checkout or installed from a wheel.

The repository keeps `templates/`, `static/` and `packs/` at its top level. A wheel carries
them inside the package, as `memadmin/bundled/` (`setup.py` copies them there when it builds),
so an installed memadmin finds them wherever it is. Its own data (the SQLite database, synced
stores, collected static files) goes to `var/` in a checkout and to
`$XDG_DATA_HOME/memadmin` (`~/.local/share/memadmin`) when installed; `MEMADMIN_VAR_DIR`
overrides both. Plain Python: `memadmin/cli.py` reads it before Django is set up, and the settings from it.
"""

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent
CHECKOUT_DIR = PACKAGE_DIR.parent
BUNDLED_DIR = PACKAGE_DIR / "bundled"
FROM_CHECKOUT = (CHECKOUT_DIR / "pyproject.toml").is_file() and (
    CHECKOUT_DIR / "templates"
).is_dir()

# The folder holding templates/, static/ and packs/.
ASSETS_DIR = CHECKOUT_DIR if FROM_CHECKOUT else BUNDLED_DIR
TEMPLATES_DIR = ASSETS_DIR / "templates"
STATIC_DIR = ASSETS_DIR / "static"
BUNDLED_PACKS_DIR = ASSETS_DIR / "packs"


def data_home(environ=os.environ) -> Path:
    """Return the user's data folder: $XDG_DATA_HOME, else ~/.local/share."""
    named = environ.get("XDG_DATA_HOME") or str(Path(environ.get("HOME", "~")) / ".local/share")
    return Path(named).expanduser()


def default_var_dir(environ=os.environ) -> Path:
    """Return where memadmin keeps its data unless MEMADMIN_VAR_DIR says otherwise."""
    if FROM_CHECKOUT:
        return CHECKOUT_DIR / "var"
    return data_home(environ) / "memadmin"


def var_dir(environ=os.environ) -> Path:
    """Return memadmin's data folder: MEMADMIN_VAR_DIR, or the default above."""
    named = environ.get("MEMADMIN_VAR_DIR")
    return Path(named) if named else default_var_dir(environ)


def default_tokenizer_dir(environ=os.environ) -> Path:
    """Return where the claude token counter's files are set up: `.cache/` in a checkout."""
    base = CHECKOUT_DIR if FROM_CHECKOUT else var_dir(environ)
    return base / ".cache" / "ai-tokenizer"

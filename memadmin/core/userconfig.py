"""The memory budget a magic-context user really has: their config files, else the version's default.

The plugin reads ``memory.injection_budget_tokens`` from two JSON-with-comments files, the
project's over the user's (``config/migrate-config-location.ts``):

- the user's: ``$XDG_CONFIG_HOME/cortexkit/magic-context.jsonc`` when ``XDG_CONFIG_HOME`` is an
  absolute path, else ``$HOME/.config/cortexkit/magic-context.jsonc``;
- the project's: ``<project root>/.cortexkit/magic-context.jsonc``.

The value must be a number from 500 to 20000 (``config/schema/magic-context.ts``). Without
one, the plugin's default applies: 4000 up to 0.46, 8000 from 0.47 on. The files are read with
``json5`` (a superset of JSON with comments: comments and trailing commas). A file that does
not parse, or a value out of range, is named as a problem and passed over; nothing raises.
"""

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import json5

CONFIG_NAME = "magic-context.jsonc"
BUDGET_KEY = "memory.injection_budget_tokens"
BUDGET_LOW, BUDGET_HIGH = 500, 20000
DEFAULT_BEFORE_047 = 4000
DEFAULT_FROM_047 = 8000
# upstream-facts: 0.38 had 78 migrations and 0.47 about 94; a store with 94 or more is read
# as 0.47 or later.
MIGRATIONS_AT_047 = 94


@dataclass(frozen=True, slots=True)
class UserBudget:
    """A budget and the sentence saying where it came from, with any problem met on the way."""

    tokens: int
    source: str
    problems: tuple[str, ...] = field(default=())


def user_config_path(environ: Mapping[str, str] | None = None) -> Path:
    """Return where the plugin looks for the user's config file."""
    environ = os.environ if environ is None else environ
    xdg = environ.get("XDG_CONFIG_HOME", "")
    if xdg and os.path.isabs(xdg):
        base = Path(xdg)
    else:
        base = Path(environ.get("HOME") or Path.home()) / ".config"
    return base / "cortexkit" / CONFIG_NAME


def project_config_path(root: str | Path) -> Path:
    """Return where the plugin looks for a project's config file, given the project's root."""
    return Path(root) / ".cortexkit" / CONFIG_NAME


def version_default(migrations: int | None) -> tuple[int, str]:
    """Return the plugin's default budget for a store's migration count, and why."""
    if migrations is not None and migrations >= MIGRATIONS_AT_047:
        return DEFAULT_FROM_047, (
            f"magic-context's default for 0.47 and later ({migrations} migrations in the store)"
        )
    shown = "unknown" if migrations is None else str(migrations)
    return DEFAULT_BEFORE_047, (f"magic-context's default up to 0.46 (store migrations: {shown})")


def _budget_in(path: Path) -> tuple[int | None, str | None]:
    """Return the budget a config file sets (None when it sets none) and its problem, if any."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, None
    except (OSError, UnicodeDecodeError) as error:
        return None, f"{path}: cannot be read ({error}); its budget is ignored"
    try:
        document = json5.loads(text)
    except ValueError as error:
        return None, f"{path}: does not parse ({error}); its budget is ignored"
    memory = document.get("memory") if isinstance(document, dict) else None
    if not isinstance(memory, dict) or "injection_budget_tokens" not in memory:
        return None, None
    value = memory["injection_budget_tokens"]
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value):
        return None, f"{path}: {BUDGET_KEY} is {value!r}, not a whole number; it is ignored"
    if not BUDGET_LOW <= value <= BUDGET_HIGH:
        return None, (
            f"{path}: {BUDGET_KEY} is {int(value)}, outside {BUDGET_LOW}..{BUDGET_HIGH}; "
            "it is ignored"
        )
    return int(value), None


def user_budget(
    *,
    project_roots: tuple[str | Path, ...] = (),
    migrations: int | None = None,
    environ: Mapping[str, str] | None = None,
) -> UserBudget:
    """Return the budget the plugin would use: a project file, the user's file, else the default.

    ``project_roots`` are the places the project is known to live (the first that sets a
    budget wins); ``migrations`` the store's migration count, which tells the version.
    """
    problems: list[str] = []
    for root in project_roots:
        path = project_config_path(root)
        tokens, problem = _budget_in(path)
        if problem:
            problems.append(problem)
        if tokens is not None:
            return UserBudget(tokens, f"{BUDGET_KEY} in {path}", tuple(problems))
    path = user_config_path(environ)
    tokens, problem = _budget_in(path)
    if problem:
        problems.append(problem)
    if tokens is not None:
        return UserBudget(tokens, f"{BUDGET_KEY} in {path}", tuple(problems))
    tokens, why = version_default(migrations)
    return UserBudget(tokens, why, tuple(problems))

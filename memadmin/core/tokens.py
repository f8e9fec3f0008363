"""Count tokens the way magic-context counts them against its injection budget.

magic-context counts with the npm package ai-tokenizer and its `claude` encoding, and falls
back to `ceil(text.length / 3.5)` when that cannot load. Both are here:

- `HeuristicCounter` ("heuristic"), the fallback, in exact integer arithmetic;
- `ClaudeCounter` ("claude"), equal to ai-tokenizer's count for every text. It reads the
  encoding from files made at set-up time (`python -m memadmin.core.tokens setup`), in the
  folder named by MEMADMIN_TOKENIZER_DIR, by default `.cache/ai-tokenizer` in a checkout
  (`core/locations.py` says where when installed).

`default_counter()` gives the claude counter when it is set up, else the heuristic one; a
caller can tell which from its `name`.
"""

import argparse
import functools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

from memadmin.core import locations
from memadmin.core.claude_encoding import (
    EXPORT_FORMAT,
    META_FILE,
    ClaudeEncoding,
    EncodingFilesMissing,
    utf16_length,
)

COUNTER_NAMES = ("heuristic", "claude")
AI_TOKENIZER_VERSION = "1.0.6"
TOKENIZER_DIR_ENV = "MEMADMIN_TOKENIZER_DIR"
SETUP_COMMAND = "python -m memadmin.core.tokens setup"

_EXPORT_SCRIPT = Path(__file__).with_name("export_claude_encoding.mjs")


class TokenCounter(Protocol):
    """Anything that counts the tokens of a text under a stable name.

    A counter whose counts depend on the version of something it loads also has a
    `version`; counts are cached under name and version (see `memadmin.ledger.count_cache`).
    """

    name: str

    def count(self, text: str) -> int:
        """Return the number of tokens in `text`."""
        ...


class UnknownCounter(ValueError):
    """A counter name that is not one of COUNTER_NAMES."""


class CounterUnavailable(RuntimeError):
    """A known counter that cannot work here, such as claude before set-up."""


class SetupFailed(RuntimeError):
    """The set-up of the claude counter could not be completed."""


class HeuristicCounter:
    """magic-context's fallback: `ceil(text.length / 3.5)` over UTF-16 code units."""

    name = "heuristic"

    def count(self, text: str) -> int:
        """Return ceil(units / 3.5), computed as ceil(2 * units / 7) in integers."""
        return (2 * utf16_length(text) + 6) // 7


class ClaudeCounter:
    """ai-tokenizer's `claude` count, read from the set-up folder."""

    name = "claude"

    def __init__(self, directory: Path | None = None):
        """Load the encoding; raise CounterUnavailable if the folder is not set up."""
        self.directory = directory if directory is not None else tokenizer_dir()
        self._encoding = _load_encoding(self.directory.resolve())
        self.version = self._encoding.package_version

    def count(self, text: str) -> int:
        """Return the number of tokens ai-tokenizer's `encode(text, "all")` makes."""
        return self._encoding.count(text)


@functools.cache
def _load_encoding(directory: Path) -> ClaudeEncoding:
    try:
        encoding = ClaudeEncoding(directory)
    except EncodingFilesMissing as error:
        raise CounterUnavailable(
            f"the claude token counter is not set up in {directory} ({error}); "
            f"run `{SETUP_COMMAND}` (needs Node.js and npm)"
        ) from error
    if encoding.package_version != AI_TOKENIZER_VERSION:
        raise CounterUnavailable(
            f"{directory} holds ai-tokenizer {encoding.package_version}, this code expects "
            f"{AI_TOKENIZER_VERSION}; run `{SETUP_COMMAND}`"
        )
    return encoding


_COUNTERS: dict[str, Callable[[], TokenCounter]] = {
    "heuristic": HeuristicCounter,
    "claude": ClaudeCounter,
}


def get_counter(name: str) -> TokenCounter:
    """Return the counter called `name`; raise UnknownCounter or CounterUnavailable."""
    try:
        factory = _COUNTERS[name]
    except KeyError:
        raise UnknownCounter(
            f"unknown token counter {name!r}; the known counters are {', '.join(COUNTER_NAMES)}"
        ) from None
    return factory()


def default_counter() -> TokenCounter:
    """Return the claude counter when it is set up, else the heuristic one."""
    try:
        return ClaudeCounter()
    except CounterUnavailable:
        return HeuristicCounter()


def tokenizer_dir() -> Path:
    """Return the set-up folder: MEMADMIN_TOKENIZER_DIR, else `.cache/ai-tokenizer` (locations)."""
    configured = os.environ.get(TOKENIZER_DIR_ENV)
    return Path(configured) if configured else locations.default_tokenizer_dir()


def setup(directory: Path | None = None) -> Path:
    """Install ai-tokenizer and export its claude encoding into the folder, as needed.

    Each step runs only when its result is missing or stale, so running this again is
    cheap. Return the folder; raise SetupFailed with the reason if a step fails.
    """
    directory = (directory if directory is not None else tokenizer_dir()).resolve()
    directory.mkdir(parents=True, exist_ok=True)
    if _installed_version(directory) != AI_TOKENIZER_VERSION:
        _run(
            _tool("npm"),
            "install",
            "--prefix",
            str(directory),
            "--save-exact",
            "--no-audit",
            "--no-fund",
            f"ai-tokenizer@{AI_TOKENIZER_VERSION}",
        )
        if _installed_version(directory) != AI_TOKENIZER_VERSION:
            raise SetupFailed(f"npm did not install ai-tokenizer {AI_TOKENIZER_VERSION}")
    node = _tool("node")
    if not _export_is_current(directory, node):
        _run(node, str(_EXPORT_SCRIPT), str(directory))
    _load_encoding.cache_clear()
    try:
        _load_encoding(directory)
    except CounterUnavailable as error:
        raise SetupFailed(f"the export does not load: {error}") from error
    return directory


def _installed_version(directory: Path) -> str | None:
    manifest = directory / "node_modules" / "ai-tokenizer" / "package.json"
    try:
        return json.loads(manifest.read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


def _export_is_current(directory: Path, node: str) -> bool:
    """Return whether the export matches the pinned package and this Node's Unicode tables."""
    try:
        meta = json.loads((directory / META_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    node_version = _run(node, "-p", "process.versions.node").strip()
    return (
        meta.get("package_version") == AI_TOKENIZER_VERSION
        and meta.get("node_version") == node_version
        and meta.get("format") == EXPORT_FORMAT
    )


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise SetupFailed(f"`{name}` is not on PATH; the claude counter needs Node.js and npm")
    return path


def _run(*command: str) -> str:
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        output = (result.stderr or result.stdout).strip()
        raise SetupFailed(f"`{' '.join(command)}` failed ({result.returncode}): {output}")
    return result.stdout


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line: `setup`, or `count` to count standard input."""
    parser = argparse.ArgumentParser(prog="python -m memadmin.core.tokens")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("setup", help="install ai-tokenizer and export its claude encoding")
    count = commands.add_parser("count", help="print the token count of standard input")
    count.add_argument("--counter", choices=COUNTER_NAMES, default="claude")
    arguments = parser.parse_args(argv)
    try:
        if arguments.command == "setup":
            print(f"claude token counter ready in {setup()}")
        else:
            print(get_counter(arguments.counter).count(sys.stdin.read()))
    except (SetupFailed, CounterUnavailable) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The content digest upstream uses to key memory dedup."""

import hashlib
import re

_WHITESPACE = re.compile(r"\s+")


def normalize_content(content: str) -> str:
    """Return the content lower-cased, each run of whitespace folded to one space, trimmed."""
    return _WHITESPACE.sub(" ", content.lower()).strip()


def normalized_hash(content: str) -> str:
    """Return the MD5 hex digest of the normalised content, exactly as magic-context computes it."""
    return hashlib.md5(normalize_content(content).encode("utf-8")).hexdigest()


def content_digest(text: str) -> str:
    """Return a SHA-256 hex digest of the exact text (cache keys, snapshots)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()

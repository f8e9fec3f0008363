"""The content digest upstream uses to key memory dedup."""

import hashlib
import re

# What JavaScript's `\s` and `trim()` treat as white space (ECMAScript's WhiteSpace and
# LineTerminator), the plugin's `content.toLowerCase().replace(/\s+/g, " ").trim()`. Python's
# `\s` differs: it takes U+001C to U+001F and U+0085 too, and not U+FEFF.
_JS_WHITESPACE = "\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
_WHITESPACE = re.compile(f"[{_JS_WHITESPACE}]+")


def normalize_content(content: str) -> str:
    """Return the content lower-cased, each run of whitespace folded to one space, trimmed."""
    return _WHITESPACE.sub(" ", content.lower()).strip(" ")


def normalized_hash(content: str) -> str:
    """Return the MD5 hex digest of the normalised content, exactly as magic-context computes it."""
    return hashlib.md5(normalize_content(content).encode("utf-8")).hexdigest()


def content_digest(text: str) -> str:
    """Return a SHA-256 hex digest of the exact text (cache keys, snapshots)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_digest64(text: str) -> int:
    """Return the 64-bit digest memadmin stores with each memory (`MemorySize.content_digest`).

    The first 8 bytes of the MD5 of the text's UTF-8, read as a signed big-endian integer:
    what PostgreSQL computes natively as ``('x' || substr(md5(t), 1, 16))::bit(64)::bigint``
    (see `memadmin.memories.sizes`), so both engines store the same number for a text. A
    lone surrogate (which has no UTF-8) is encoded as it stands ("surrogatepass").
    """
    data = text.encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.md5(data).digest()[:8], "big", signed=True)

"""The dedup hash shared with magic-context, pinned to digests the plugin itself computes.

Each expected digest was computed outside memadmin, by Node.js running the plugin's own
normalisation (`normalize-hash.ts`)::

    node -e 'const {createHash} = require("node:crypto");
             const n = t => t.toLowerCase().replace(/\\s+/g, " ").trim();
             console.log(createHash("md5").update(n(TEXT)).digest("hex"))'

so a change to the case folding, the whitespace rule or the encoding breaks these tests.
"""

import pytest

from memadmin.core.hashing import (
    content_digest,
    content_digest64,
    normalize_content,
    normalized_hash,
)

PLUGIN_DIGESTS = [
    ("Use scripts/release.sh", "62758be1367cdbab7cc7c89232e29c2e"),
    ("USE SCRIPTS/RELEASE.SH", "62758be1367cdbab7cc7c89232e29c2e"),
    ("  Run\tthe   tests\n\nbefore   merging  ", "6a495ded334fdefd31f2263ae06eb752"),
    ("Ünïcödé Straße café", "e8733db4417c16b41f1c569e5592e475"),
    ("ΟΔΟΣ ΚΑΙ ΣΟΦΙΑ", "0b2cfd73ed0bd7593cc35ffb0451cfbb"),  # noqa: RUF001 (Greek, final sigma)
    ("İstanbul", "d7078dc8185192b9aa3d4dcf8b057a8e"),
    ("a\u00a0b", "0cc9cd4dd26c5137b675a0d819cb9ab0"),
    ("a\u3000b", "0cc9cd4dd26c5137b675a0d819cb9ab0"),
    ("\ufeffBOM first", "49f2d8f905a8204344b74292415899cb"),
    ("a\u001cb", "d5cead7ccd893bab6125c3c9dcdef178"),
    ("a\u0085b", "7337d246dc3bfd7109e19d37193e7f19"),
    ("\u001cEdge\u0085", "7223ddf3b0c38e69bfcc339029b3d927"),
    (" \ufeff Trim both \u00a0 ", "9c6ac74a6f2a65cec38d080d4c8fa17f"),
    ("", "d41d8cd98f00b204e9800998ecf8427e"),
]


@pytest.mark.parametrize(("text", "digest"), PLUGIN_DIGESTS)
def test_normalized_hash_is_the_plugins_digest(text, digest):
    """The hash of a text is the MD5 digest magic-context stores for it, byte for byte."""
    assert normalized_hash(text) == digest


def test_normalization_lower_cases_folds_whitespace_runs_and_trims():
    """Normalising lower-cases, folds each run of white space to one space and trims."""
    assert normalize_content("  Run\tthe   TESTS\n\nbefore\u2028merging  ") == (
        "run the tests before merging"
    )


def test_only_javascripts_white_space_is_folded():
    """A byte-order mark is white space as JavaScript sees it; U+001C and U+0085 are not."""
    assert normalize_content("\ufeffA\ufeff\ufeffB\ufeff") == "a b"
    assert normalize_content("a\u001cb\u0085c") == "a\u001cb\u0085c"
    assert normalize_content("\u001cEdge\u0085") == "\u001cedge\u0085"


def test_content_digest_is_the_sha256_of_the_exact_text():
    """The content digest is SHA-256 of the text as it is (computed here by sha256sum)."""
    assert content_digest("Use  scripts") == (
        "606e7214e170811ec0b398ca8a1f190406117a913ca7f3b142156ed9e083a03c"
    )


def test_the_content_digest_is_the_first_eight_bytes_of_md5_signed_big_endian():
    """Pinned numbers: MD5 of the UTF-8 text (a lone surrogate as it stands), its first 8 bytes
    read as a signed big-endian integer, which PostgreSQL's md5() makes too (memories.sizes).
    md5("") is d41d8cd98f00b204...: 0xd41d8cd98f00b204 - 2**64 = -3162216497309240828."""
    assert content_digest64("") == -3162216497309240828
    assert content_digest64("Deploy with make release.") == -2562288471222919235
    assert content_digest64("café \U0001f600") == 8590117417265352085  # positive: top bit clear
    assert content_digest64("lone \udc80") == 3861831079080782041

import io
import json
import math
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memadmin.core import tokens
from memadmin.core.claude_encoding import (
    META_FILE,
    RANKS_FILE,
    ClaudeEncoding,
    EncodingFilesMissing,
    merge_count,
    read_ranks,
    utf16_length,
)
from memadmin.core.tokens import (
    COUNTER_NAMES,
    ClaudeCounter,
    CounterUnavailable,
    HeuristicCounter,
    SetupFailed,
    UnknownCounter,
    default_counter,
    get_counter,
)

CORPUS = Path(__file__).with_name("token_corpus")

# The reference: the installed ai-tokenizer itself, as magic-context calls it, and the
# fallback formula as JavaScript computes it. One Node process serves the whole module:
# each line in is a JSON list of texts, each line out their [claude, heuristic] counts.
NODE_REFERENCE = """
import { createInterface } from "node:readline";
import { Tokenizer } from "ai-tokenizer";
import * as claude from "ai-tokenizer/encoding/claude";
const tokenizer = new Tokenizer(claude);
for await (const line of createInterface({ input: process.stdin })) {
  const counts = JSON.parse(line).map((t) => [
    tokenizer.encode(t, "all").length,
    Math.ceil(t.length / 3.5),
  ]);
  process.stdout.write(JSON.stringify(counts) + "\\n");
}
"""


class NodeReference:
    """A Node process counting texts with the installed ai-tokenizer."""

    def __init__(self, directory: Path):
        self.process = subprocess.Popen(
            ["node", "--input-type=module", "-e", NODE_REFERENCE],
            cwd=directory,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            encoding="utf-8",
        )

    def counts(self, texts: list[str]) -> list[list[int]]:
        """Return [claude count, heuristic count] for each text."""
        # ensure_ascii keeps lone surrogates as escapes that JSON.parse turns back into them.
        self.process.stdin.write(json.dumps(texts, ensure_ascii=True) + "\n")
        self.process.stdin.flush()
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the Node reference stopped ({self.process.wait()})")
        return json.loads(line)

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=30)


EDGE_TEXTS = [
    "",
    " ",
    "\n",
    "a",
    # Special-token strings are counted as text.
    "<|endoftext|>",
    "<EOT>",
    "<META>",
    "<META_START>",
    "<META_END>",
    "<SOS>",
    "<EOT>hello<SOS> world<|endoftext|>",
    # Names a plain JavaScript object inherits, alone and inside code.
    "valueOf",
    "x.valueOf()",
    " valueOf",
    "__proto__",
    "a.__proto__",
    "__proto__ ",
    "constructor",
    "toString",
    "hasOwnProperty",
    "obj.hasOwnProperty(key) && isPrototypeOf(p) || propertyIsEnumerable",
    "toLocaleString",
    "__defineGetter__",
    "valueOfvalueOf",
    # The byte order mark: whitespace in JavaScript, a token reached only by merging.
    "\ufeff",
    "\ufeffBOM first",
    "a\ufeff\ufeffb",
    " \ufeff x",
    "\ufeff\r\n",
    "\ufeff\n\n",
    "x\ufeff  y",
    "\ufeff\ufeff\r\n",
    " \ufeff\ufeff \t",
    # Whitespace of every kind, and runs of it.
    " \t \n\r\n  x",
    "\u00a0\u2028\u2029\u3000\u0085\u001c\u180e\u200b",
    "a  b   c    d\n\n\n\ne\t\t\tf",
    " " * 1000,
    "\n" * 500,
    "\t \t \t \n",
    "x" + " " * 37 + "y",
    # Contractions.
    "'s 're 've 'll 'd 'm 't 'S don't it's' ''s '''",
    # Long runs of one character.
    "a" * 4000,
    "ab" * 3000,
    "1" * 2000,
    "😀" * 500,
    "." * 3000,
    "日" * 1000,
    # Surrogates: a lone one, a reversed pair, and a pair written as two code points.
    "\ud800",
    "a\udc00b",
    "\ude00\ud83d",
    "\ud83d\ude00 joined pair",
    "x\ud835\udc00y",
]


def mismatches(counter, node: NodeReference, texts: list[str]) -> list[tuple[str, int, int]]:
    """Return (text, our count, ai-tokenizer's count) for every text where they differ."""
    expected = [claude for claude, _ in node.counts(texts)]
    ours = [counter.count(text) for text in texts]
    return [
        (text[:80], mine, theirs)
        for text, mine, theirs in zip(texts, ours, expected, strict=True)
        if mine != theirs
    ]


def corpus_texts() -> list[str]:
    texts = []
    for path in sorted(CORPUS.glob("*.txt")):
        whole = path.read_text(encoding="utf-8")
        texts.append(whole)
        for line in whole.splitlines(keepends=True):
            texts.extend([line, line.rstrip("\n")])
    return texts


@pytest.fixture(scope="module")
def claude_dir() -> Path:
    return tokens.setup()


@pytest.fixture(scope="module")
def node(claude_dir):
    reference = NodeReference(claude_dir)
    yield reference
    reference.close()


@pytest.fixture(scope="module")
def claude(claude_dir) -> ClaudeCounter:
    return ClaudeCounter(claude_dir)


@pytest.fixture(scope="module")
def encoding(claude_dir) -> ClaudeEncoding:
    return ClaudeEncoding(claude_dir)


# --- heuristic -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [("", 0), ("a", 1), ("abc", 1), ("abcd", 2), ("a" * 7, 2), ("a" * 8, 3), ("a" * 35, 10)],
)
def test_heuristic_counts_ascii_characters_over_three_and_a_half(text, expected):
    """An ASCII text costs ceil(characters / 3.5)."""
    assert HeuristicCounter().count(text) == expected


def test_heuristic_counts_an_emoji_as_two_units():
    """An emoji outside the BMP is two UTF-16 units, as JavaScript's length counts it."""
    assert HeuristicCounter().count("😀") == 1
    assert HeuristicCounter().count("😀" * 7) == 4
    assert HeuristicCounter().count("👩‍👩‍👧‍👦") == 4  # 4 emoji and 3 joiners: 11 units


def test_heuristic_counts_cjk_characters_as_one_unit_each():
    """A CJK character inside the BMP is one unit."""
    assert HeuristicCounter().count("日本語") == 1
    assert HeuristicCounter().count("日本語のテキスト") == 3


def test_heuristic_integer_formula_equals_the_float_one():
    """ceil(2n / 7) in integers gives JavaScript's Math.ceil(n / 3.5) for every length."""
    assert all((2 * n + 6) // 7 == math.ceil(n / 3.5) for n in range(100_000))


def test_utf16_length_counts_lone_surrogates_once():
    """A lone surrogate is one code unit, an astral character two."""
    assert utf16_length("a\ud800b😀") == 5


def test_heuristic_matches_javascript_on_the_corpus(node):
    """The heuristic equals `Math.ceil(text.length / 3.5)` computed by Node."""
    texts = corpus_texts() + EDGE_TEXTS
    expected = [heuristic for _, heuristic in node.counts(texts)]
    assert [HeuristicCounter().count(text) for text in texts] == expected


# --- claude: equality with ai-tokenizer ------------------------------------------------


def test_claude_matches_ai_tokenizer_on_the_corpus(claude, node):
    """Code, prose, several scripts and emoji, whole and line by line, count the same."""
    assert mismatches(claude, node, corpus_texts()) == []


def test_claude_matches_ai_tokenizer_on_edge_cases(claude, node):
    """Special-token strings, inherited names, whitespace, long runs and surrogates agree."""
    assert mismatches(claude, node, EDGE_TEXTS) == []


def test_claude_matches_ai_tokenizer_on_every_vocabulary_string(claude, node, claude_dir):
    """Each vocabulary string, alone and between other text, counts the same."""
    strings = []
    for token in read_ranks(claude_dir / RANKS_FILE):
        try:
            strings.append(token.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    texts = strings + [f"x{string} y" for string in strings]
    texts += [f"\ufeff{string}" for string in strings if string.isspace()]
    assert mismatches(claude, node, texts) == []


FRAGMENTS = [
    "valueOf",
    "hasOwnProperty",
    "__proto__",
    "constructor",
    "\ufeff",
    "<EOT>",
    "<|endoftext|>",
    "'s",
    "'",
    " ",
    "   ",
    "\n",
    "\t",
    "\r\n",
    "\u00a0",
    "\u3000",
    "\u0085",
    "123",
    "日本",
    "😀",
    "\u200d",
    "👩",
    "é",
    "e\u0301",
    "\U0001d400",  # MATHEMATICAL BOLD CAPITAL A, a letter outside the BMP
    "_",
    ".",
    "#12: ",
]
_fragment = st.one_of(
    st.sampled_from(FRAGMENTS),
    st.text(max_size=8),
    st.text(st.characters(max_codepoint=0x7F), max_size=12),
    st.characters(categories=["Cs"]),
)
random_texts = st.lists(_fragment, max_size=30).map("".join)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(random_texts, min_size=20, max_size=50))
def test_claude_matches_ai_tokenizer_on_random_text(claude, node, batch):
    """Random text, mixed with the fragments where the details matter, counts the same."""
    assert mismatches(claude, node, batch) == []


# --- claude: internal consistency, without Node ----------------------------------------


@settings(max_examples=300, deadline=None)
@given(random_texts)
def test_whole_text_count_equals_piece_by_piece_count(encoding, text):
    """tiktoken's one-call count equals the count made piece by piece in Python."""
    assert encoding.count(text) == encoding.count_by_pieces(text)


def test_whole_text_count_equals_piece_by_piece_count_on_the_corpus(encoding):
    """The two ways of counting agree on every corpus text."""
    for text in corpus_texts() + EDGE_TEXTS:
        assert encoding.count(text) == encoding.count_by_pieces(text), text[:80]


def test_merge_count_agrees_with_tiktoken_on_real_pieces(encoding):
    """Merging a piece in Python gives tiktoken's count wherever tiktoken is used."""
    for text in corpus_texts():
        for piece in encoding._split(text):
            if piece not in encoding._direct and "\ufeff" not in piece:
                expected = len(encoding._tiktoken.encode_ordinary(piece))
                assert merge_count(piece.encode(), encoding._javascript_rank) == expected, piece


def quadratic_merge_count(data: bytes, ranks: dict[bytes, int]) -> int:
    """Merge as ai-tokenizer's loop does: rescan every pair after each merge."""
    parts = [data[i : i + 1] for i in range(len(data))]
    while True:
        pairs = [ranks.get(parts[i] + parts[i + 1]) for i in range(len(parts) - 1)]
        ranked = [(rank, i) for i, rank in enumerate(pairs) if rank is not None]
        if not ranked:
            return sum(part in ranks for part in parts)
        _, i = min(ranked)
        parts[i : i + 2] = [parts[i] + parts[i + 1]]


@given(
    st.binary(max_size=24).map(lambda data: data.replace(b"\x00", b"a")),
    st.dictionaries(st.binary(min_size=1, max_size=4), st.integers(0, 20), max_size=40),
)
def test_merge_count_equals_the_rescanning_merge(data, ranks):
    """The heap-based merge ends exactly where rescanning all pairs each time ends."""
    assert merge_count(data, ranks.get) == quadratic_merge_count(data, ranks)


def test_merge_count_merges_the_lowest_rank_first():
    """The pair of lowest rank merges first: `bc` before `ab`, leaving a + bc + d."""
    ranks = {b"a": 10, b"b": 11, b"c": 12, b"d": 13, b"bc": 0, b"ab": 1, b"cd": 2}
    assert merge_count(b"abcd", ranks.get) == 3  # merging ab first would give ab + cd


def test_merge_count_prefers_the_leftmost_pair_among_equal_ranks():
    """Among pairs of one rank the leftmost merges: aaa becomes aa + a, then aaa."""
    ranks = {b"a": 10, b"aa": 0, b"aaa": 1}
    assert merge_count(b"aaa", ranks.get) == 1
    assert merge_count(b"aaaa", {b"a": 10, b"aa": 0}.get) == 2


def test_merge_count_drops_bytes_without_a_rank():
    """A byte with no rank is left out of the count, as ai-tokenizer leaves it out."""
    assert merge_count(b"axb", {b"a": 0, b"b": 1}.get) == 2
    assert merge_count(b"", {b"a": 0}.get) == 0


# --- choosing a counter ----------------------------------------------------------------


def test_counter_names_are_heuristic_and_claude():
    """The two known counters are offered by name."""
    assert COUNTER_NAMES == ("heuristic", "claude")
    assert get_counter("heuristic").name == "heuristic"


def test_get_counter_returns_claude_once_set_up(claude_dir):
    """With the set-up done, the claude counter loads by name."""
    assert get_counter("claude").name == "claude"


def test_an_unknown_counter_name_is_refused_with_the_known_names():
    """An unknown name raises UnknownCounter, a ValueError naming the known counters."""
    with pytest.raises(UnknownCounter, match="heuristic, claude") as raised:
        get_counter("gpt2")
    assert isinstance(raised.value, ValueError)


def test_claude_without_set_up_is_unavailable_and_says_how_to_set_it_up(tmp_path, monkeypatch):
    """Without exported files the claude counter raises CounterUnavailable naming the fix."""
    monkeypatch.setenv(tokens.TOKENIZER_DIR_ENV, str(tmp_path))
    with pytest.raises(CounterUnavailable, match=r"python -m memadmin\.core\.tokens setup"):
        get_counter("claude")


def test_default_counter_is_claude_when_set_up(claude_dir, monkeypatch):
    """Where the set-up folder is ready, the default counter is claude."""
    monkeypatch.setenv(tokens.TOKENIZER_DIR_ENV, str(claude_dir))
    assert default_counter().name == "claude"


def test_default_counter_falls_back_to_the_heuristic(tmp_path, monkeypatch):
    """Where the claude counter is not set up, the default is the heuristic."""
    monkeypatch.setenv(tokens.TOKENIZER_DIR_ENV, str(tmp_path))
    assert default_counter().name == "heuristic"


def test_an_export_of_another_package_version_is_unavailable(claude_dir, tmp_path):
    """Files exported from another ai-tokenizer version are not used."""
    (tmp_path / RANKS_FILE).write_bytes((claude_dir / RANKS_FILE).read_bytes())
    meta = json.loads((claude_dir / META_FILE).read_text(encoding="utf-8"))
    meta["package_version"] = "0.9.0"
    (tmp_path / META_FILE).write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(CounterUnavailable, match=r"0\.9\.0"):
        ClaudeCounter(tmp_path)


def test_a_broken_vocabulary_is_unavailable_when_loaded(claude_dir, tmp_path):
    """A ranks file that does not parse is refused when the encoding is made, not counted."""
    (tmp_path / META_FILE).write_bytes((claude_dir / META_FILE).read_bytes())
    (tmp_path / RANKS_FILE).write_bytes((claude_dir / RANKS_FILE).read_bytes() + b"IQ== x\n")
    with pytest.raises(EncodingFilesMissing, match="cannot read"):
        ClaudeEncoding(tmp_path)


def test_the_vocabulary_tables_and_tiktoken_are_built_on_the_first_count(claude_dir):
    """Made, the encoding holds no table; the first count builds them and counts as ever."""
    fresh = ClaudeEncoding(claude_dir)
    built = ("_ranks", "_strings", "_direct", "_tiktoken")
    assert not any(name in vars(fresh) for name in built)
    assert fresh.count("Use scripts/release.sh VERSION for releases.") == ClaudeEncoding(
        claude_dir
    ).count_by_pieces("Use scripts/release.sh VERSION for releases.")
    assert all(name in vars(fresh) for name in built)


# --- set-up ----------------------------------------------------------------------------


def test_setup_again_changes_nothing(claude_dir):
    """A second set-up finds everything current and rewrites no file."""
    before = {name: (claude_dir / name).stat().st_mtime_ns for name in (META_FILE, RANKS_FILE)}
    assert tokens.setup(claude_dir) == claude_dir
    after = {name: (claude_dir / name).stat().st_mtime_ns for name in (META_FILE, RANKS_FILE)}
    assert after == before


def test_setup_without_npm_fails_with_a_clear_message(tmp_path, monkeypatch, capsys):
    """Without npm on PATH the set-up command exits 1 and says what is missing."""
    monkeypatch.setenv(tokens.TOKENIZER_DIR_ENV, str(tmp_path / "tokenizer"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(SetupFailed, match="npm"):
        tokens.setup()
    assert tokens.main(["setup"]) == 1
    assert "`npm` is not on PATH" in capsys.readouterr().err


def test_the_count_command_prints_the_count(claude_dir, monkeypatch, capsys):
    """`count` prints the token count of standard input."""
    monkeypatch.setattr("sys.stdin", io.StringIO("abcdefg"))
    assert tokens.main(["count", "--counter", "heuristic"]) == 0
    assert capsys.readouterr().out == "2\n"

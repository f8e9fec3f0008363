// Export the `claude` encoding of the npm package ai-tokenizer for memadmin's Python counter.
//
// Usage: node export_claude_encoding.mjs <dir>
//   <dir> holds node_modules/ai-tokenizer (installed with `npm install --prefix <dir>`).
//
// Writes into <dir>:
//   claude.tiktoken  one line per token, "<base64 bytes> <rank>", exactly the byte strings
//                    ai-tokenizer's merge step can look up, each with the rank it finds;
//   claude.json      what the Python side needs besides the ranks (written last, so its
//                    presence means the export is complete):
//     pattern          ai-tokenizer's pre-split pattern, rewritten for Python's `re` with
//                      every Unicode class (\p{L}, \s, ...) spelled out as the code point
//                      ranges this Node matches, so both split text identically;
//     source_pattern   the pattern as the package ships it;
//     inherited_names  names a plain JavaScript object answers without owning them
//                      ("valueOf", "__proto__"...): ai-tokenizer's direct lookup of a piece
//                      finds them and counts the piece as one token;
//     bpe_only_tokens  base64 tokens that are valid UTF-8 but absent from the string table,
//                      so a piece equal to one is merged byte by byte, not looked up.
//
// Nothing here is a copy of the package's code; it only reads the package's data.

import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const FORMAT = 1;
const MAX_CODE_POINT = 0x10ffff;

function fail(message) {
  process.stderr.write(`export_claude_encoding: ${message}\n`);
  process.exit(1);
}

async function importEncoding(dir) {
  const packageDir = join(dir, "node_modules", "ai-tokenizer");
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  const entry = manifest.exports?.["./encoding/claude"]?.import;
  const target = typeof entry === "string" ? entry : entry?.default;
  if (!target) fail("ai-tokenizer's package.json exports no ./encoding/claude module");
  const encoding = await import(pathToFileURL(join(packageDir, target)).href);
  return { encoding, version: manifest.version };
}

// The strict UTF-8 decode ai-tokenizer applies before its string lookup.
const strictDecoder = new TextDecoder("utf-8", { fatal: true });
function asString(bytes) {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

function compareBytes(a, b) {
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}

// The rank ai-tokenizer's merge step finds for a byte string: the string table first
// (for valid UTF-8), then a binary search in the binary entries sharing its first byte.
// Returns undefined where it finds nothing usable as a rank.
function makeLookup(stringEncoder, binaryEncoder) {
  const buckets = new Map();
  for (const entry of binaryEncoder) {
    if (entry[0].length === 0) continue;
    const first = entry[0][0];
    if (!buckets.has(first)) buckets.set(first, []);
    buckets.get(first).push(entry);
  }
  return (bytes) => {
    const text = asString(bytes);
    if (text !== undefined && stringEncoder[text] !== undefined) {
      const rank = stringEncoder[text];
      return typeof rank === "number" ? rank : undefined;
    }
    const bucket = buckets.get(bytes[0]) ?? [];
    let low = 0;
    let high = bucket.length - 1;
    while (low <= high) {
      const mid = (low + high) >>> 1;
      const order = compareBytes(bucket[mid][0], bytes);
      if (order === 0) return bucket[mid][1];
      if (order < 0) low = mid + 1;
      else high = mid - 1;
    }
    return undefined;
  };
}

function exportRanks(encoding) {
  const encoder = new TextEncoder();
  const lookup = makeLookup(encoding.stringEncoder, encoding.binaryEncoder);
  const entries = new Map();
  const bpeOnly = [];
  const keep = (bytes) => {
    const rank = lookup(bytes);
    if (rank !== undefined) entries.set(Buffer.from(bytes).toString("base64"), rank);
  };
  for (const text of Object.keys(encoding.stringEncoder)) keep(encoder.encode(text));
  for (const [bytes] of encoding.binaryEncoder) {
    keep(bytes);
    const text = asString(bytes);
    if (text !== undefined && !Object.hasOwn(encoding.stringEncoder, text)) {
      bpeOnly.push(Buffer.from(bytes).toString("base64"));
    }
  }
  const ranks = new Set(entries.values());
  if (ranks.size !== entries.size) fail("two byte strings share one rank; review the export");
  for (let byte = 0; byte < 256; byte++) {
    if (lookup(Uint8Array.of(byte)) === undefined) {
      fail(`byte ${byte} has no rank: the merge step would drop it; review the export`);
    }
  }
  return { entries, bpeOnly };
}

// --- Pattern translation: JavaScript (u flag) to Python `re`, classes made explicit. ---

const memberships = new Map();
function membership(escape) {
  if (!memberships.has(escape)) {
    const test = new RegExp(`^${escape}$`, "u");
    const inside = new Uint8Array(MAX_CODE_POINT + 1);
    for (let cp = 0; cp <= MAX_CODE_POINT; cp++) {
      inside[cp] = test.test(String.fromCodePoint(cp)) ? 1 : 0;
    }
    memberships.set(escape, inside);
  }
  return memberships.get(escape);
}

function pythonCodePoint(cp) {
  return cp <= 0xffff
    ? `\\u${cp.toString(16).padStart(4, "0")}`
    : `\\U${cp.toString(16).padStart(8, "0")}`;
}

// The ranges of one class escape as the body of a Python character class.
function classBody(escape) {
  const inside = membership(escape);
  let body = "";
  let cp = 0;
  while (cp <= MAX_CODE_POINT) {
    if (!inside[cp]) {
      cp++;
      continue;
    }
    const start = cp;
    while (cp + 1 <= MAX_CODE_POINT && inside[cp + 1]) cp++;
    body += start === cp ? pythonCodePoint(start) : `${pythonCodePoint(start)}-${pythonCodePoint(cp)}`;
    cp++;
  }
  if (!body) fail(`class ${escape} matches nothing`);
  return body;
}

// Escapes whose meaning differs between the engines become explicit classes; every other
// construct must be one known to mean the same in both, or the export stops.
const CLASS_ESCAPE = /^\\(?:[pP]\{[A-Za-z_=]+\}|[sSdDwW])/;
const SAME_ESCAPE = /^\\(?:[nrtvf0]|[\\^$.*+?()[\]{}|\/'"-]|x[0-9A-Fa-f]{2}|u[0-9A-Fa-f]{4})/;
const SAME_GROUP = /^\((?:\?[:=!])?/;

// The escape that matches exactly what `escape` does not: \s for \S, \p{L} for \P{L}.
function positiveEscape(escape) {
  if (/^\\[SDW]$/.test(escape)) return escape.toLowerCase();
  if (escape.startsWith("\\P")) return `\\p${escape.slice(2)}`;
  return escape;
}

function translatePattern(source) {
  let out = "";
  let inClass = false;
  let i = 0;
  while (i < source.length) {
    const rest = source.slice(i);
    const classEscape = rest.match(CLASS_ESCAPE);
    if (classEscape) {
      // Outside a class a negated escape (\S, \P{L}) becomes a negated class, so the
      // surrogates it also matches need not be spelled out.
      const escape = classEscape[0];
      const positive = positiveEscape(escape);
      if (inClass) out += classBody(escape);
      else if (positive === escape) out += `[${classBody(escape)}]`;
      else out += `[^${classBody(positive)}]`;
      i += escape.length;
      continue;
    }
    const sameEscape = rest.match(SAME_ESCAPE);
    if (sameEscape) {
      out += sameEscape[0];
      i += sameEscape[0].length;
      continue;
    }
    const ch = rest[0];
    if (ch === "\\") fail(`pattern escape ${rest.slice(0, 4)} is not translated; review it`);
    if (inClass) {
      if (ch === "]") inClass = false;
      if (ch === "[") fail("nested class in the pattern is not translated; review it");
      out += ch;
      i++;
      continue;
    }
    if (ch === "[") {
      inClass = true;
      out += ch;
      if (rest[1] === "^") {
        out += "^";
        i++;
      }
      i++;
      continue;
    }
    if (ch === "(") {
      const group = rest.match(SAME_GROUP)[0];
      if (rest.startsWith("(?") && group.length < 3) {
        fail(`group ${rest.slice(0, 4)} is not translated; review it`);
      }
      out += group;
      i += group.length;
      continue;
    }
    if (ch === "." || ch === "$" || ch === "^") {
      fail(`"${ch}" differs between the engines and is not translated; review it`);
    }
    out += ch;
    i++;
  }
  if (inClass) fail("unterminated class in the pattern");
  return out;
}

function writeAtomically(path, text) {
  writeFileSync(`${path}.tmp`, text);
  renameSync(`${path}.tmp`, path);
}

async function main() {
  const dir = process.argv[2];
  if (!dir) fail("usage: node export_claude_encoding.mjs <dir with node_modules/ai-tokenizer>");
  const { encoding, version } = await importEncoding(dir);
  const { entries, bpeOnly } = exportRanks(encoding);
  const lines = [...entries].sort((a, b) => a[1] - b[1]).map(([b64, rank]) => `${b64} ${rank}\n`);
  const inheritedNames = Object.getOwnPropertyNames(Object.prototype).filter(
    (name) => encoding.stringEncoder[name] !== undefined && !Object.hasOwn(encoding.stringEncoder, name),
  );
  const meta = {
    format: FORMAT,
    package: "ai-tokenizer",
    package_version: version,
    encoding: encoding.name,
    source_pattern: encoding.pat_str,
    pattern: translatePattern(encoding.pat_str),
    inherited_names: inheritedNames,
    bpe_only_tokens: bpeOnly,
    node_version: process.versions.node,
    unicode_version: process.versions.unicode,
  };
  writeAtomically(join(dir, "claude.tiktoken"), lines.join(""));
  writeAtomically(join(dir, "claude.json"), `${JSON.stringify(meta, null, 1)}\n`);
}

await main();

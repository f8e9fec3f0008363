"""The wire format of the injected memory block, as magic-context renders it.

The block is the wrapper tag, then one tag per category holding one line per memory, each
tag and line on its own line, joined by ``\\n`` with no trailing newline after the closing
wrapper (upstream joins its lines with ``"\\n"``)::

    <project-memory>
    <PROJECT_RULES>
    #12: Use scripts/release.sh VERSION for releases.
    </PROJECT_RULES>
    <CONSTRAINTS>
    #40 [billing-api]: MCP sends numeric parameters as strings.
    </CONSTRAINTS>
    </project-memory>

An empty selection renders as ``""``: nothing at all is injected, not an empty wrapper.
Categories come in render order: the five named below first, in that order, then every
other category alphabetically (by UTF-16 code units, as JavaScript compares strings), and
memories within a category by id. Importance is never rendered.
"""

from collections.abc import Iterable

WRAPPER = "project-memory"
WRAPPER_TEXT = f"<{WRAPPER}>\n</{WRAPPER}>"

PRIORITY_CATEGORIES: tuple[str, ...] = (
    "PROJECT_RULES",
    "ARCHITECTURE",
    "CONSTRAINTS",
    "CONFIG_VALUES",
    "NAMING",
)
_PRIORITY = {name: index for index, name in enumerate(PRIORITY_CATEGORIES)}


def escape_content(text: str) -> str:
    """Return the text with ``&``, ``<`` and ``>`` escaped (memory content, source names)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def escape_tag(name: str) -> str:
    """Return a category name escaped for use as a tag name: ``& < > " '``."""
    return escape_content(name).replace('"', "&quot;").replace("'", "&apos;")


def memory_line(
    memory_id: int, content: str, source_name: str | None = None, suffix: str = ""
) -> str:
    """Return one memory's line: ``#id: content``, or ``#id [source]: content``.

    ``suffix`` (already safe, see ``headers``) is appended as is.
    """
    if "&" in content or "<" in content or ">" in content:
        content = escape_content(content)
    if source_name:
        return f"#{memory_id} [{escape_content(source_name)}]: {content}{suffix}"
    return f"#{memory_id}: {content}{suffix}"


def counted_lines(memories: Iterable, suffixes: dict[int, str]) -> list[str]:
    """Return each memory's line followed by ``\n``: the text its cost is counted on."""
    lines = []
    append = lines.append
    get_suffix = suffixes.get
    for memory in memories:
        content = memory.content
        if "&" in content or "<" in content or ">" in content:
            content = content.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        source = f" [{escape_content(memory.source_name)}]" if memory.source_name else ""
        append(f"#{memory.id}{source}: {content}{get_suffix(memory.id, '')}\n")
    return lines


def category_tags_text(category: str) -> str:
    """Return the text whose count is a category's one-time cost: both tags, newlines."""
    tag = escape_tag(category)
    return f"<{tag}>\n</{tag}>\n"


def category_sort_key(
    category: str, priority: tuple[str, ...] = PRIORITY_CATEGORIES
) -> tuple[int, int, bytes]:
    """Return the key that puts categories in render order: ``priority`` first, in order."""
    rank = (
        _PRIORITY.get(category)
        if priority is PRIORITY_CATEGORIES
        else (priority.index(category) if category in priority else None)
    )
    if rank is not None:
        return (0, rank, b"")
    # UTF-16-BE bytes compare exactly as JavaScript compares strings, by code unit.
    return (1, 0, category.encode("utf-16-be", "surrogatepass"))


def render_block(
    entries: Iterable[tuple[str, int, str]], priority: tuple[str, ...] = PRIORITY_CATEGORIES
) -> str:
    """Return the block for (category, memory id, line) entries, in render order.

    The entries may come in any order; they are grouped and ordered here, the categories of
    ``priority`` first (a pack's order in pack mode).
    """
    by_category: dict[str, list[tuple[int, str]]] = {}
    for category, memory_id, line in entries:
        by_category.setdefault(category, []).append((memory_id, line))
    if not by_category:
        return ""
    lines = [f"<{WRAPPER}>"]
    for category in sorted(by_category, key=lambda name: category_sort_key(name, priority)):
        tag = escape_tag(category)
        lines.append(f"<{tag}>")
        lines.extend(line for _, line in sorted(by_category[category]))
        lines.append(f"</{tag}>")
    lines.append(f"</{WRAPPER}>")
    return "\n".join(lines)

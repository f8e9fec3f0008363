"""The header line of headers mode (Proposal 3: fragmentation with header blocks).

In headers mode the default injection is a table of contents. The block keeps the plugin's
wire format (wrapper, category tags, one ``#id: content`` line per memory, same escaping,
same render order); only a header's line changes. It ends with the ids of the details the
agent can fetch::

    #12: Release SOP, five steps (details: #13, #14, #15 — ctx_memory get)

The suffix always closes the line and has a fixed grammar: a space, ``(details: ``, the
detail ids as ``#id`` joined by ``, ``, then `` — ctx_memory get)``. Ids are digits and the
content before it is escaped, so the suffix parses unambiguously from the end of the line.
It lists the header's direct details, those that are eligible, in composite order
(composites by id, members by position), each once. A listed detail that is itself a
header (theme header -> category header -> details) leads on to its own details through
the composite edges, the retrieval path Proposal 3 describes; coverage counts such details
as reachable. (Upstream's ``ctx_memory get`` today returns the memories asked for and does
not follow composites.) A header with no eligible detail renders as a plain line. The
suffix's tokens are part of the line's cost, counted exactly as the plugin counts a line.
"""

DETAILS_OPEN = " (details: "
DETAILS_CLOSE = " — ctx_memory get)"


def details_suffix(detail_ids: tuple[int, ...]) -> str:
    """Return the suffix that lists a header's details, or ``""`` when it has none."""
    if not detail_ids:
        return ""
    listed = ", #".join(map(str, detail_ids))
    return f"{DETAILS_OPEN}#{listed}{DETAILS_CLOSE}"

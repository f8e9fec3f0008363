"""The header map as plain data: layers, roots, details in order, counts and unreached memories."""

from hypothesis import given
from hypothesis import strategies as st

from memadmin.core.ledger.graph import CompositeIndex, top_level
from memadmin.core.ledger.model import LedgerComposite
from memadmin.headermap.tree import (
    CATEGORY_HEADER,
    DETAIL,
    THEME_HEADER,
    HeaderMap,
    MapGraph,
    MapMemory,
    UnreachedGroup,
)


def memory(id, tokens=10, category="OPS_RULES"):
    return MapMemory(id=id, display_id=id, category=category, content=f"m{id}", tokens=tokens)


def composite(id, head, *members, type="theme"):
    return LedgerComposite(id=id, type=type, head_id=head, member_ids=members)


def build(composites, ids=range(1, 10)):
    return HeaderMap([memory(i) for i in ids], composites)


def test_two_layers_are_named_as_the_proposal_does():
    """Theme header -> category headers -> details."""
    tree = build([composite(1, 1, 2, 3), composite(2, 2, 4, 5), composite(3, 3, 6)])
    assert [(n.id, n.layer) for n in tree.roots()] == [(1, THEME_HEADER)]
    assert [(n.id, n.layer) for n in tree.details(1)] == [
        (2, CATEGORY_HEADER),
        (3, CATEGORY_HEADER),
    ]
    assert [(n.id, n.layer) for n in tree.details(2)] == [(4, DETAIL), (5, DETAIL)]


def test_counts_and_tokens_are_of_distinct_memories():
    """A detail shared by two category headers counts once under their theme header."""
    tree = build([composite(1, 1, 2, 3), composite(2, 2, 4, 5), composite(3, 3, 5, 6)])
    root = tree.node(1)
    assert (root.details, root.reach_count, root.reach_tokens) == (2, 5, 50)
    assert root.subtree_tokens == 60
    assert tree.node(4).has_details is False


def test_details_keep_composite_order_and_appear_once():
    """Members come in composite order (composites by id), each once."""
    tree = build([composite(1, 1, 4, 2), composite(2, 1, 2, 3, type="sequence")])
    assert [n.id for n in tree.details(1)] == [4, 2, 3]
    assert tree.node(1).types == ("theme", "sequence")


def test_memories_in_no_composite_are_unreached():
    """Memories no header reaches are listed apart."""
    tree = build([composite(1, 1, 2)], ids=range(1, 5))
    assert [m.id for m in tree.unreached()] == [3, 4]
    assert tree.summary() == {
        "memories": 4,
        "headers": 1,
        "details": 1,
        "roots": 1,
        "unreached": 2,
        "header_tokens": 10,
        "detail_tokens": 10,
        "unreached_tokens": 20,
    }


def test_a_composite_with_a_dead_head_reaches_nothing():
    """A head that is not live (archived) leaves its members unreached."""
    tree = build([composite(1, 99, 2, 3)], ids=range(1, 4))
    assert tree.roots() == []
    assert [m.id for m in tree.unreached()] == [1, 2, 3]


def test_a_ring_of_headers_is_entered_at_its_lowest_id():
    """Headers that only reach one another still appear, with cycles counted once."""
    tree = build([composite(1, 5, 6), composite(2, 6, 5, 7)])
    assert [n.id for n in tree.roots()] == [5]
    assert tree.node(5).reach_count == 2


def test_theme_headers_come_first_among_roots():
    """Roots list theme headers, then category headers."""
    tree = build([composite(1, 1, 2), composite(2, 3, 4), composite(3, 4, 5)])
    assert [n.id for n in tree.roots()] == [3, 1]


def test_root_ids_come_in_the_order_the_roots_are_drawn_without_making_nodes():
    """Sorting the roots needs only their layer and category: the same order as the nodes."""
    tree = HeaderMap(
        [memory(i, category="ENV_STATE" if i % 2 else "OPS_RULES") for i in range(1, 12)],
        [
            composite(1, 1, 2),
            composite(2, 4, 6),
            composite(3, 5, 1, 8),
            composite(4, 9, 10),
            composite(5, 3, 11),
        ],
    )
    # The theme header, then ENV_STATE's (odd ids) before OPS_RULES's whatever their ids.
    assert tree.root_ids() == [n.id for n in tree.roots()] == [5, 3, 9, 4]
    assert [tree.layer(i) for i in (5, 3, 1, 2)] == [
        THEME_HEADER,
        CATEGORY_HEADER,
        CATEGORY_HEADER,
        DETAIL,
    ]


def test_unreached_memories_are_summed_up_and_listed_by_category():
    """Each category's unreached memories are counted with their tokens, and listed by id."""
    memories = [
        memory(1),
        memory(2),
        memory(3, tokens=5, category="ENV_STATE"),
        memory(4, tokens=7),
        memory(5, tokens=2, category="ENV_STATE"),
    ]
    tree = HeaderMap(memories, [composite(1, 1, 2)])
    assert tree.unreached_groups() == [
        UnreachedGroup("ENV_STATE", 2, 7),
        UnreachedGroup("OPS_RULES", 1, 7),
    ]
    assert [m.id for m in tree.unreached("ENV_STATE")] == [3, 5]
    assert tree.unreached("NO_SUCH") == []


EDGES = st.lists(
    st.tuples(st.integers(1, 12), st.lists(st.integers(1, 12), max_size=4)), max_size=10
)


@given(EDGES)
def test_roots_are_those_the_whole_graph_gives(edges):
    """Finding roots over the edges between headers only agrees with walking every detail."""
    composites = [composite(n, head, *members) for n, (head, members) in enumerate(edges, 1)]
    tree = build(composites, ids=range(1, 13))
    details = CompositeIndex(composites, set(range(1, 13))).members_of
    in_graph = set(details).union(*details.values())
    expected = top_level(sorted(in_graph), details) & details.keys()
    assert sorted(tree.root_ids()) == sorted(expected)


@given(EDGES, st.sets(st.integers(1, 12)))
def test_a_map_of_what_a_nodes_details_show_draws_them_as_the_whole_map(edges, dead):
    """Over the graph of every live id, the memories a node's details show are enough to draw them.

    Layers, types, counts and tokens of the details agree with the whole map's, whatever
    the rings, dead heads and self-members; the memories in no composite agree too.
    """
    composites = [composite(n, head, *members) for n, (head, members) in enumerate(edges, 1)]
    live = [i for i in range(1, 13) if i not in dead]
    whole = build(composites, ids=live)
    graph = MapGraph(set(live), composites)
    assert graph.unreached == [m.id for m in whole.unreached()]
    for memory_id in live:
        shown = graph.shown_by_details(memory_id)
        part = HeaderMap([memory(i) for i in live if i in shown], graph=graph)
        assert part.details(memory_id) == whole.details(memory_id)

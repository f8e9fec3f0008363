import itertools
import math
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memadmin.core.diagrams import Node, budget_bar_svg, composite_svg
from memadmin.core.diagrams.scene import LABEL_LINES, LINE_CHARACTERS

SVG = "{http://www.w3.org/2000/svg}"
KINDS = ["sequence", "theme", "cause", "alternatives"]
SIZES = ["full", "thumb"]
HEAD = Node(1, "Release procedure", href="/memories/1/")


def members(count: int) -> list[Node]:
    return [Node(100 + i, f"Step {i}", href=f"/memories/{100 + i}/") for i in range(count)]


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def nodes(root: ET.Element, role: str | None = None) -> list[ET.Element]:
    """Return the diagram's node groups, optionally only those of one role."""
    found = root.iter(f"{SVG}g")
    return [g for g in found if "data-id" in g.attrib and role in (None, g.get("data-role"))]


def member_ids(root: ET.Element) -> list[int]:
    return [int(g.get("data-id")) for g in nodes(root) if g.get("data-role") != "head"]


def edges(root: ET.Element) -> list[ET.Element]:
    return [line for line in root.iter(f"{SVG}polyline") if line.get("class") == "edge"]


def all_text(root: ET.Element) -> str:
    return " ".join("".join(element.itertext()) for element in root.iter())


def polyline_points(line: ET.Element) -> list[tuple[float, float]]:
    pairs = (pair.split(",") for pair in line.get("points").split())
    return [(float(x), float(y)) for x, y in pairs]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("count", [0, 1, 2, 3, 7, 13, 50])
def test_every_composite_is_well_formed_with_every_member(kind, size, count):
    """Each kind and size parses as XML and draws the head and each member once."""
    root = parse(composite_svg(kind, HEAD, members(count), size=size))
    assert root.tag == f"{SVG}svg"
    assert len(nodes(root, "head")) == 1
    assert member_ids(root) == [100 + i for i in range(count)]


@pytest.mark.parametrize("kind", KINDS)
def test_diagrams_are_labelled_for_assistive_technology(kind):
    """The root is an image with an aria-label, repeated as its first child's <title>."""
    root = parse(composite_svg(kind, HEAD, members(3)))
    assert root.get("role") == "img"
    assert "Release procedure" in root.get("aria-label")
    assert root[0].tag == f"{SVG}title"
    assert root[0].text == root.get("aria-label")


@pytest.mark.parametrize(
    ("kind", "summary"),
    [
        ("sequence", "Sequence headed by #1 \u201cRelease procedure\u201d, then 3 steps in order."),
        ("theme", "Theme around #1 \u201cRelease procedure\u201d, with 3 members."),
        ("cause", "3 causes leading to #1 \u201cRelease procedure\u201d."),
        ("alternatives", "Alternatives for #1 \u201cRelease procedure\u201d: choose one of 3."),
    ],
)
def test_summary_says_what_the_picture_shows(kind, summary):
    """The summary names the kind, the head and the number of members."""
    assert parse(composite_svg(kind, HEAD, members(3))).get("aria-label") == summary


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("size", SIZES)
def test_user_text_is_escaped(kind, size):
    """A label holding markup comes out as text, never as an element."""
    hostile = '<script>alert("x")</script> & <b>bold</b>'
    svg = composite_svg(kind, Node(1, hostile), [Node(2, hostile)], cursor=0, size=size)
    root = parse(svg)
    assert "<script" not in svg and "<b>" not in svg
    assert not [element for element in root.iter() if element.tag.endswith(("script", "b"))]
    assert "<script>" in all_text(root)


def test_control_characters_do_not_break_the_xml():
    """Characters XML refuses are dropped from labels."""
    root = parse(composite_svg("theme", Node(1, "bell\x07 nul\x00 esc\x1b"), [Node(2, "\ud800")]))
    assert "bell nul esc" in all_text(root)


@pytest.mark.parametrize("kind", KINDS)
def test_long_labels_wrap_on_three_lines_and_the_tooltip_holds_the_whole_text(kind):
    """A long label shows its start wrapped on three lines, the last ending in an ellipsis;
    the tooltip and the link's label (what a screen reader reads) hold the whole text."""
    long_label = " ".join(f"word{n}" for n in range(100))
    root = parse(composite_svg(kind, Node(1, "head"), [Node(2, long_label, href="/m/2/")]))
    [member] = nodes(root, "member")
    lines = [tspan.text for tspan in member.iter(f"{SVG}tspan")]
    assert len(lines) == LABEL_LINES
    assert all(len(line) <= LINE_CHARACTERS for line in lines)
    assert "#2 word0 word1 word2" in " ".join(lines)
    assert lines[-1].endswith("\u2026")
    tooltip = member.find(f"{SVG}title").text
    assert tooltip.endswith(f"#2 {long_label}")  # a step's has its number before
    assert member.find(f"{SVG}a").get("aria-label") == tooltip


def test_a_short_label_takes_one_line_and_a_word_longer_than_a_line_is_broken():
    """Lines break between words; one word wider than the box is broken, never overflows."""
    root = parse(composite_svg("theme", HEAD, [Node(2, "Short."), Node(3, "x" * 80)]))
    short, long = nodes(root, "member")
    assert [t.text for t in short.iter(f"{SVG}tspan")] == ["#2 Short."]
    assert all(len(t.text) <= LINE_CHARACTERS for t in long.iter(f"{SVG}tspan"))


def test_multi_line_labels_are_folded_onto_one_line():
    """Newlines in a memory's text become spaces in its label."""
    root = parse(composite_svg("theme", HEAD, [Node(2, "first\n\n  second")]))
    assert "first second" in all_text(root)


def test_blank_label_shows_the_memory_id():
    """A node with nothing to say is named by its id."""
    root = parse(composite_svg("theme", HEAD, [Node(7, "   ")]))
    [member] = nodes(root, "member")
    assert "".join(member.find(f".//{SVG}text").itertext()) == "#7"


@pytest.mark.parametrize("kind", KINDS)
def test_cursor_member_is_marked_and_explained(kind):
    """The member at the cursor carries the cursor class and the legend explains it."""
    root = parse(composite_svg(kind, HEAD, members(5), cursor=2))
    [marked] = nodes(root, "cursor")
    assert marked.get("data-id") == "102"
    assert "cursor" in marked.find(f".//{SVG}rect").get("class").split()
    assert "read position" in marked.find(f"{SVG}title").text
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    assert "read position (cursor)" in all_text(legend)
    assert "Read position:" in root.get("aria-label")


def test_sequence_summary_names_the_cursor_step():
    """The summary counts steps from 1, as the picture does."""
    root = parse(composite_svg("sequence", HEAD, members(5), cursor=0))
    assert root.get("aria-label").endswith("Read position: step 1, #100 \u201cStep 0\u201d.")


@pytest.mark.parametrize("cursor", [None, 5, -1])
def test_no_cursor_or_a_stale_one_marks_nothing(cursor):
    """Without a cursor inside the members, nothing is marked and the legend is silent."""
    root = parse(composite_svg("sequence", HEAD, members(5), cursor=cursor))
    assert nodes(root, "cursor") == []
    assert "read position" not in all_text(root)


def test_sequence_is_a_chain_from_the_head_in_order():
    """Edges run head -> first member -> second ..., one per link, all arrows."""
    root = parse(composite_svg("sequence", HEAD, members(6)))
    links = [(line.get("data-source"), line.get("data-target")) for line in edges(root)]
    chain = ["1", "100", "101", "102", "103", "104", "105"]
    assert links == list(itertools.pairwise(chain))
    assert len(list(root.iter(f"{SVG}polygon"))) == 6


def test_sequence_numbers_its_steps():
    """Each step's label starts with its number, counted from 1."""
    root = parse(composite_svg("sequence", HEAD, members(3)))
    captions = ["".join(g.find(f".//{SVG}text").itertext()) for g in nodes(root, "member")]
    assert captions == ["1. #100 Step 0", "2. #101 Step 1", "3. #102 Step 2"]


def test_boxes_that_begin_alike_show_their_ids_and_what_sets_them_apart():
    """Members sharing a long opening show their id and the words after it."""
    steps = [
        Node(id=20 + n, label=f"Release a service, step {n}: {verb} the fleet")
        for n, verb in enumerate(["drain", "deploy", "verify"], start=1)
    ]
    root = parse(composite_svg("sequence", HEAD, steps))
    captions = ["".join(g.find(f".//{SVG}text").itertext()) for g in nodes(root, "member")]
    assert captions[0].startswith("1. #21 1: drain")
    assert len(set(captions)) == 3
    titles = [g.find(f"{SVG}title").text for g in nodes(root, "member")]
    assert titles[1] == "2. #22 Release a service, step 2: deploy the fleet"


@pytest.mark.parametrize("count", [1, 4, 12, 13, 50])
def test_cause_arrows_point_at_the_head(count):
    """Every cause edge starts at a member and ends on the head's border, with an arrow."""
    root = parse(composite_svg("cause", HEAD, members(count)))
    head_rect = nodes(root, "head")[0].find(f".//{SVG}rect")
    left, top = float(head_rect.get("x")), float(head_rect.get("y"))
    right = left + float(head_rect.get("width"))
    bottom = top + float(head_rect.get("height"))
    lines = edges(root)
    assert len(lines) == count
    arrowheads = list(root.iter(f"{SVG}polygon"))
    assert len(arrowheads) == count
    for line, arrowhead in zip(lines, arrowheads, strict=True):
        assert line.get("data-target") == "1"
        assert line.get("data-source") != "1"
        (start_x, start_y), (end_x, end_y) = polyline_points(line)
        assert left - 0.1 <= end_x <= right + 0.1 and top - 0.1 <= end_y <= bottom + 0.1
        assert not (left <= start_x <= right and top <= start_y <= bottom)
        tip = tuple(float(v) for v in arrowhead.get("points").split()[0].split(","))
        assert math.isclose(tip[0], end_x) and math.isclose(tip[1], end_y)


def test_theme_is_a_star_around_the_head():
    """Each member has one undirected edge to the head, and the head sits in the middle."""
    root = parse(composite_svg("theme", HEAD, members(8)))
    assert sorted(line.get("data-target") for line in edges(root)) == [
        str(100 + i) for i in range(8)
    ]
    assert {line.get("data-source") for line in edges(root)} == {"1"}
    assert list(root.iter(f"{SVG}polygon")) == []
    head_rect = nodes(root, "head")[0].find(f".//{SVG}rect")
    head_centre = float(head_rect.get("x")) + float(head_rect.get("width")) / 2
    assert head_centre == float(root.get("width")) / 2
    xs = [float(g.find(f".//{SVG}rect").get("x")) for g in nodes(root, "member")]
    assert min(xs) < head_centre < max(xs)


def test_alternatives_are_peers_in_one_choose_one_group():
    """Members sit in one framed group, linked once to the head, captioned "choose one"."""
    root = parse(composite_svg("alternatives", HEAD, members(3)))
    frames = [rect for rect in root.iter(f"{SVG}rect") if rect.get("class") == "group"]
    assert len(frames) == 1
    [link] = edges(root)
    assert (link.get("data-source"), link.get("data-target")) == ("1", "group")
    assert "choose one of 3" in all_text(root)
    rows = {g.find(f".//{SVG}rect").get("y") for g in nodes(root, "member")}
    assert len(rows) == 1  # side by side


@pytest.mark.parametrize("kind", KINDS)
def test_empty_composite_shows_the_head_alone(kind):
    """With no members there are no edges, and the full size says so."""
    root = parse(composite_svg(kind, HEAD, []))
    assert len(nodes(root)) == 1
    assert edges(root) == []
    assert "yet." in all_text(root)


@pytest.mark.parametrize("kind", KINDS)
def test_nodes_with_a_link_are_wrapped_in_it(kind):
    """A node with an href is a link; one without is not."""
    root = parse(composite_svg(kind, HEAD, [Node(2, "linked", href="/m/2/?a=1&b=2"), Node(3, "x")]))
    links = {a.get("href") for a in root.iter(f"{SVG}a")}
    assert links == {"/memories/1/", "/m/2/?a=1&b=2"}
    for a in root.iter(f"{SVG}a"):
        assert a.get("aria-label")


def test_script_links_are_not_drawn():
    """A javascript: href is dropped, leaving a node without a link."""
    root = parse(composite_svg("theme", Node(1, "h", href=" JavaScript:alert(1)"), []))
    assert list(root.iter(f"{SVG}a")) == []


@pytest.mark.parametrize("kind", KINDS)
def test_thumbnails_stay_small_and_wordless(kind):
    """A thumbnail is 160 by 100, with tooltips but no drawn text, whatever the count."""
    for count in (0, 5, 50):
        root = parse(composite_svg(kind, HEAD, members(count), size="thumb"))
        assert root.get("viewBox") == "0 0 160 100"
        assert list(root.iter(f"{SVG}text")) == []
        assert len(list(root.iter(f"{SVG}title"))) == count + 2
        for rect in root.iter(f"{SVG}rect"):
            x, y = float(rect.get("x")), float(rect.get("y"))
            assert x >= 0 and x + float(rect.get("width")) <= 160
            assert y >= 0 and y + float(rect.get("height")) <= 100


@pytest.mark.parametrize("kind", KINDS)
def test_full_size_boxes_never_overlap(kind):
    """However many members, no two boxes cover each other."""
    root = parse(composite_svg(kind, HEAD, members(50)))
    boxes = []
    for g in nodes(root):
        rect = g.find(f".//{SVG}rect")
        x, y = float(rect.get("x")), float(rect.get("y"))
        boxes.append((x, y, x + float(rect.get("width")), y + float(rect.get("height"))))
    for index, (left, top, right, bottom) in enumerate(boxes):
        for other_left, other_top, other_right, other_bottom in boxes[index + 1 :]:
            apart = (
                right <= other_left
                or other_right <= left
                or bottom <= other_top
                or other_bottom <= top
            )
            assert apart
        assert left >= 0 and right <= float(root.get("width"))


@pytest.mark.parametrize("kind", KINDS)
def test_styling_comes_from_classes_with_inline_fallbacks(kind):
    """Shapes carry the stylesheet's classes and their own fill and stroke."""
    root = parse(composite_svg(kind, HEAD, members(2), cursor=1))
    classes = {rect.get("class") for rect in root.iter(f"{SVG}rect")}
    assert {"node head", "node member", "node member cursor"} <= classes
    for rect in root.iter(f"{SVG}rect"):
        assert rect.get("stroke")
    for line in edges(root):
        assert line.get("stroke")


def test_output_is_deterministic_and_self_contained():
    """The same input gives the same bytes, with no external references."""
    first = composite_svg("theme", HEAD, members(9), cursor=3)
    assert first == composite_svg("theme", HEAD, members(9), cursor=3)
    assert "http" not in first.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "url(" not in first and "<image" not in first and "<style" not in first


@pytest.mark.parametrize(("kind", "size"), [("graph", "full"), ("theme", "huge")])
def test_unknown_kind_or_size_is_refused(kind, size):
    """Only the four kinds and two sizes are drawn."""
    with pytest.raises(ValueError, match="Unknown"):
        composite_svg(kind, HEAD, [], size=size)


@given(
    st.sampled_from(KINDS),
    st.sampled_from(SIZES),
    st.text(),
    st.lists(st.text(max_size=300), max_size=15),
    st.one_of(st.none(), st.integers(-2, 16)),
)
def test_any_labels_give_well_formed_svg(kind, size, head_label, labels, cursor):
    """Whatever the labels, the output parses and keeps every member."""
    members_ = [Node(10 + i, label, href=label or None) for i, label in enumerate(labels)]
    root = parse(composite_svg(kind, Node(1, head_label), members_, cursor=cursor, size=size))
    assert member_ids(root) == [10 + i for i in range(len(labels))]


def segment_groups(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if "data-tokens" in g.attrib]


def test_budget_bar_fills_by_category_then_shows_the_space_left():
    """Each category is a segment in order, then the free space, widths proportional."""
    svg = budget_bar_svg([("PROJECT_RULES", 1000), ("CONSTRAINTS", 500)], 4000, used=1500)
    root = parse(svg)
    groups = segment_groups(root)
    rects = [g.find(f"{SVG}rect") for g in groups]
    assert [rect.get("class") for rect in rects] == ["segment seg-0", "segment seg-1", "free"]
    assert [g.get("data-tokens") for g in groups] == ["1000", "500", "2500"]
    widths = [float(rect.get("width")) for rect in rects]
    assert widths[0] == pytest.approx(2 * widths[1])
    assert sum(widths) == pytest.approx(608)
    assert [float(rect.get("x")) for rect in rects] == pytest.approx(
        [16, 16 + widths[0], 16 + widths[0] + widths[1]]
    )
    titles = [g.find(f"{SVG}title").text for g in groups]
    assert titles[0] == "PROJECT_RULES: 1,000 tokens (25% of budget)"
    assert titles[2] == "free: 2,500 tokens (62% of budget)"
    assert "1,500 of 4,000 tokens used (38%), 2,500 free" in all_text(root)
    assert root.get("role") == "img" and root[0].tag == f"{SVG}title"


def test_budget_bar_labels_every_segment_in_its_legend():
    """Narrow segments have no room for text, but the legend names them all."""
    root = parse(budget_bar_svg([("BIG", 3900), ("TINY", 5)], 4000, used=3905))
    legend = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "legend")
    assert "TINY 5" in all_text(legend) and "BIG 3,900" in all_text(legend)
    tiny = segment_groups(root)[1]
    assert tiny.find(f".//{SVG}text") is None


def test_budget_bar_shows_unaccounted_tokens_as_other():
    """Tokens used beyond the segments' sum (wrapper, tags) are drawn as "other"."""
    root = parse(budget_bar_svg([("A", 100)], 1000, used=130))
    assert [g.get("data-tokens") for g in segment_groups(root)] == ["100", "30", "870"]
    assert segment_groups(root)[1].find(f"{SVG}rect").get("class") == "segment other"


def test_budget_bar_over_budget_marks_the_limit():
    """Past the budget the bar goes on, a limit line marks it, and nothing is free."""
    root = parse(budget_bar_svg([("A", 3000), ("B", 1500)], 4000, used=4500))
    assert [g.get("data-tokens") for g in segment_groups(root)] == ["3000", "1500"]
    [limit] = [line for line in root.iter(f"{SVG}line") if line.get("class") == "budget-limit"]
    assert float(limit.get("x1")) == pytest.approx(16 + 608 * 4000 / 4500, abs=0.05)
    assert "500 over budget" in root.get("aria-label")


def test_budget_bar_escapes_labels():
    """Category labels are text, never markup."""
    svg = budget_bar_svg([("<script>x</script>", 10)], 100, used=10)
    assert "<script>" not in svg
    assert "<script>x</script>" in all_text(parse(svg))


def test_budget_bar_empty_and_full():
    """No segments is all free space; a full budget has no free segment."""
    empty = parse(budget_bar_svg([], 4000, used=0))
    assert [g.get("data-tokens") for g in segment_groups(empty)] == ["4000"]
    full = parse(budget_bar_svg([("A", 4000)], 4000, used=4000))
    assert [g.get("data-tokens") for g in segment_groups(full)] == ["4000"]
    assert segment_groups(full)[0].find(f"{SVG}rect").get("class") == "segment seg-0"


def test_budget_bar_colours_cycle_deterministically():
    """Past eight categories the colour classes start again."""
    segments = [(f"C{i}", 10) for i in range(10)]
    svg = budget_bar_svg(segments, 1000, used=100)
    classes = [g.find(f"{SVG}rect").get("class") for g in segment_groups(parse(svg))]
    assert classes[8] == "segment seg-0" and classes[9] == "segment seg-1"
    assert svg == budget_bar_svg(segments, 1000, used=100)


@pytest.mark.parametrize(
    ("segments", "budget", "used"), [([], 0, 0), ([("A", -1)], 100, 0), ([], 100, -5)]
)
def test_budget_bar_refuses_impossible_numbers(segments, budget, used):
    """A budget must be positive and token counts not negative."""
    with pytest.raises(ValueError):
        budget_bar_svg(segments, budget, used=used)


@given(
    st.lists(st.tuples(st.text(max_size=50), st.integers(0, 10_000)), max_size=12),
    st.integers(1, 20_000),
    st.integers(0, 30_000),
)
def test_any_budget_gives_well_formed_svg(segments, budget, used):
    """Whatever the numbers and labels, the bar parses."""
    root = parse(budget_bar_svg(segments, budget, used=used))
    assert root.get("role") == "img"

"""Addresses built in Python: every value comes back as it was, by the rules of `{% querystring %}`."""

from urllib.parse import urlsplit

from django.http import QueryDict
from django.template import Context, Template
from hypothesis import given
from hypothesis import strategies as st

from memadmin.web.addresses import address, query_string

AWKWARD = "R&D #2 + 50% off=yes?  é ü 東京 🙂"

text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
queries = st.dictionaries(text, st.lists(text, max_size=3), max_size=4)


def read(url: str) -> QueryDict:
    """Return the query of `url` as Django reads a request's."""
    return QueryDict(urlsplit(url).query)


@given(queries)
def test_every_key_and_value_round_trips(query):
    """Whatever the keys and values hold, Django reads back the same lists."""
    wanted = {key: values for key, values in query.items() if values}
    got = QueryDict(query_string(query))
    assert {key: got.getlist(key) for key in got} == wanted


@given(queries, queries)
def test_the_helper_and_the_template_tag_agree(first, second):
    """`query_string` gives the query `{% querystring first second %}` gives in a template."""
    tag = Template("{% autoescape off %}{% querystring first second %}{% endautoescape %}")
    assert tag.render(Context({"first": first, "second": second})) == "?" + query_string(
        first, second
    )


def test_an_awkward_value_round_trips_with_its_path_and_anchor():
    """`&`, `#`, `+`, `%`, `=`, `?`, spaces and non-ASCII are encoded; the anchor comes last."""
    url = address("/memories/", project=3, category=AWKWARD, anchor="row-7")
    assert url.startswith("/memories/?project=3&category=R%26D+%232+%2B+50%25+off%3Dyes%3F")
    assert urlsplit(url).fragment == "row-7"
    assert read(url).dict() == {"project": "3", "category": AWKWARD}


def test_later_values_win_none_drops_and_a_list_repeats():
    """Mappings then keywords, later ones winning in place; None drops a key; a list repeats."""
    base = QueryDict("q=a&page=2&open=1&open=2")
    assert query_string(base, {"page": None}, page=3) == "q=a&open=1&open=2&page=3"
    assert query_string(base, q="b") == "q=b&page=2&open=1&open=2"
    assert query_string(base, open=[], q=None, page=None) == ""
    assert query_string(ids=[4, None, 5], type="theme") == "ids=4&ids=5&type=theme"


def test_no_query_leaves_the_path_bare():
    """An address with no parameter has no "?"."""
    assert address("/history/") == "/history/"
    assert address("/history/", QueryDict(), actor=None) == "/history/"
    assert address("/map/", anchor="map-node-4") == "/map/#map-node-4"

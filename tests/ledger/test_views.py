"""The ledger pages through the test client: project list, preview, filters, download."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from pytest_django.asserts import assertContains

from memadmin.ledger.models import TokenCount
from tests.html_tree import attribute, field_error, find, find_all, links, text, top

pytestmark = pytest.mark.django_db


def page_url(project, **params):
    query = "&".join(f"{name}={value}" for name, value in params.items())
    return f"/ledger/{project.pk}/?{query}"


def counter_named(body: str) -> str:
    """The counter the preview names (in bold), checking the sentence that names it."""
    sentence = find(body, "p", class_="ledger-counter")
    name = text(find(sentence, "strong"))
    assert text(sentence).startswith(f"Token counts by the {name} counter")
    return name


def row_classes(body: str) -> list[str]:
    """The class of each row of the ledger's table: injected, left-out (and found)."""
    return [
        attribute(row, "class")
        for row in find_all(find(body, "table", class_="ledger-rows"), "tr", id=True)
    ]


def test_the_index_lists_projects_with_links(client_as, project, sop):
    """Ledger in the navigation leads to a list of projects, each linking to its ledger."""
    response = client_as("viewer").get("/ledger/")
    assert response.status_code == 200
    projects = find(response.content.decode(), "table", class_="ledger-projects")
    assert dict(links(projects))["Ops"] == f"/ledger/{project.pk}/"


def test_the_page_shows_block_bar_coverage_rows_and_counter(client_as, project, sop):
    """The preview has the rendered block, the SVG bar, every mode's coverage and the counter."""
    response = client_as("viewer").get(
        page_url(project, budget=4000, counter="heuristic", mode="pack")
    )
    body = response.content.decode()
    assert response.status_code == 200
    assert "&lt;project-memory&gt;" in body
    assert f"#{sop['header'].pk}: Release SOP: three steps." in body
    assert find(find(body, "figure", class_="ledger-bar"), "svg", class_="budget-bar")
    coverage = find(body, "table", class_="ledger-coverage")
    for mode in ("plugin", "headers", "pack"):
        cell = find(coverage, "td", class_=f"num coverage-{mode}", data_label="Coverage")
        assert text(cell).split()[0].endswith("%"), mode
    assert counter_named(body) == "heuristic"


def test_the_budget_defaults_to_the_projects(client_as, project, sop):
    """Without a budget in the address, the project's own budget is shown."""
    response = client_as("viewer").get(f"/ledger/{project.pk}/")
    for kind in ("range", "number"):
        assertContains(
            response,
            f'<input type="{kind}" id="budget-{kind}" name="budget" min="500" max="20000" '
            'step="1" value="4000" aria-describedby="budget-help">',
            count=1,
            html=True,
        )
    assertContains(response, '<small id="budget-help">500 to 20,000 tokens.</small>', html=True)


def test_a_smaller_budget_injects_less(client_as, project, sop):
    """Moving the budget changes the ledger."""
    client = client_as("viewer")
    big = client.get(page_url(project, budget=4000, counter="heuristic", mode="pack")).content
    small = client.get(page_url(project, budget=500, counter="heuristic", mode="pack")).content
    big, small = big.decode(), small.decode()
    (heading,) = [h for h in find_all(big, "h2") if find_all(h, "span", class_="ledger-mode")]
    assert text(find(heading, "span", class_="ledger-mode")) == "pack"
    assert re.fullmatch(r"pack mode: \d+ of 4000 tokens, 5 memories injected", text(heading))
    assert "of 500 tokens" in small


@pytest.mark.parametrize("budget", ["499", "20001", "lots", ""])
def test_a_budget_out_of_range_is_refused_with_a_message(client_as, project, sop, budget):
    """A budget outside 500..20000 gets a clear message, no preview, and nothing cached."""
    response = client_as("viewer").get(page_url(project, budget=budget))
    assert response.status_code == 400 if budget else 200
    if budget:
        assert (
            b"The budget must be a whole number between 500 and 20000 tokens." in response.content
        )
        assert b"&lt;project-memory&gt;" not in response.content
        assert not TokenCount.objects.exists()


def test_both_budget_controls_name_the_budget_error(client_as, project, sop):
    """A refused budget: the slider and the number box describe it by its help and its error."""
    html = client_as("viewer").get(page_url(project, budget="lots")).content.decode()
    error = text(find(html, id="id_budget_error"))
    assert error == "The budget must be a whole number between 500 and 20000 tokens."
    for control in ("budget-range", "budget-number"):
        described = attribute(find(html, id=control), "aria-describedby").split()
        assert described == ["budget-help", "id_budget_error"], control


def test_an_unknown_counter_is_refused_with_a_message(client_as, project, sop):
    """An unknown counter name is named in the message; nothing is assembled."""
    response = client_as("viewer").get(page_url(project, counter="gpt"))
    assert response.status_code == 400
    assert "Unknown token counter gpt" in field_error(response.content.decode(), "id_counter")
    assert not TokenCount.objects.exists()


def test_a_project_without_memories_says_so(client_as, mc_project):
    """An empty project has nothing to assemble, and says it."""
    response = client_as("viewer").get(f"/ledger/{mc_project.pk}/")
    assert response.status_code == 200
    assert b"has no memories yet" in response.content
    assert not TokenCount.objects.exists()


def test_rows_filter_by_decision_and_reason(client_as, project, sop):
    """Filtering shows only the rows with that decision and reason."""
    client = client_as("viewer")
    lazy = client.get(page_url(project, mode="headers", decision="out", reason="lazy detail"))
    body = lazy.content.decode()
    assert row_classes(body) == ["left-out"] * 3
    assert find_all(body, class_="injected") == []
    injected = client.get(page_url(project, mode="headers", decision="in")).content.decode()
    assert row_classes(injected) == ["injected"] * 2
    assert "(details: " in injected


def test_an_htmx_request_gets_the_preview_and_the_other_budget_control(client_as, project, sop):
    """Moving the slider swaps the preview and sets the number box to the new budget."""
    response = client_as("viewer").get(
        page_url(project, budget=1500, budget_was=4000) + "&budget=4000",
        headers={"HX-Request": "true"},
    )
    body = response.content.decode()
    assert top(body)[0].name == "section" and attribute(top(body)[0], "id") == "ledger-preview"
    assert find_all(body, "nav") == []
    assertContains(
        response,
        '<input type="number" id="budget-number" name="budget" min="500" max="20000" step="1" '
        'value="1500" aria-describedby="budget-help" hx-swap-oob="true">',
        count=1,
        html=True,
    )
    assert find_all(body, id="budget-range") == []
    assertContains(
        response,
        '<input type="hidden" id="budget-was" name="budget_was" value="1500" hx-swap-oob="true">',
        count=1,
        html=True,
    )
    assert "of 1500 tokens" in body


@pytest.mark.parametrize("was", ["4000", "x", "", "9" * 40])
def test_the_page_carries_the_budget_it_shows_and_takes_the_control_that_moved(
    client_as, project, sop, was
):
    """`budget_was` is the form's field, holding the budget shown; whatever a request sent in
    it (a tampered value too) only picks the control that moved, and is never refused."""
    response = client_as("viewer").get(page_url(project, budget=1500, budget_was=was))
    assert response.status_code == 200
    body = response.content.decode()
    form = find(body, "form", id="ledger-form")
    assert attribute(find(form, "input", type="hidden", id="budget-was"), "value") == "1500"
    assert "of 1500 tokens" in body


def test_a_refused_budget_over_htmx_still_shows_its_message(client_as, project, sop):
    """htmx swaps only successes, so a refusal of an htmx request comes as 200 with the message."""
    response = client_as("viewer").get(page_url(project, budget=50), headers={"HX-Request": "true"})
    assert response.status_code == 200
    assert b"between 500 and 20000" in response.content


def test_the_download_is_the_exact_block_as_an_attachment(client_as, project, sop):
    """The download is the rendered block, byte for byte, as a text attachment."""
    client = client_as("viewer")
    response = client.get(
        f"/ledger/{project.pk}/download/?budget=4000&mode=headers&counter=heuristic"
    )
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="ledger-ops-headers-4000.txt"'
    text = response.content.decode()
    assert text.startswith("<project-memory>\n") and text.endswith("</project-memory>")
    assert "(details: " in text


def test_the_download_refuses_a_bad_budget(client_as, project, sop):
    """A bad budget gets a plain-text message, not a file."""
    response = client_as("viewer").get(f"/ledger/{project.pk}/download/?budget=9")
    assert response.status_code == 400
    assert "between 500 and 20000" in response.content.decode()


def test_the_page_needs_a_login(client, project):
    """An anonymous visitor is sent to log in."""
    assert client.get(f"/ledger/{project.pk}/").status_code == 302


def test_the_page_query_count_does_not_grow_with_the_project(client_as, project, sop, remember):
    """More memories do not mean more queries."""
    client = client_as("viewer")
    url = page_url(project, counter="heuristic")
    client.get(url)
    with CaptureQueriesContext(connection) as small:
        client.get(url)
    for n in range(30):
        remember(f"Extra rule {n}.")
    client.get(url)
    with CaptureQueriesContext(connection) as large:
        client.get(url)
    assert len(small) == len(large)


def test_without_the_claude_counter_the_page_says_it_uses_the_heuristic(
    client_as, project, sop, tmp_path, monkeypatch
):
    """Where claude is not set up, the page names the heuristic and says why."""
    monkeypatch.setenv("MEMADMIN_TOKENIZER_DIR", str(tmp_path))
    body = client_as("viewer").get(f"/ledger/{project.pk}/").content.decode()
    assert counter_named(body) == "heuristic"
    assert "Using the heuristic (ceil(length / 3.5), magic-context&#x27;s fallback)" in body
    assert "python -m memadmin.core.tokens setup" in body


def test_paging_the_rows_keeps_the_address_in_step(client_as, project, remember):
    """The rows' Next link loads page 2 in place and puts it in the address, so a reload keeps it."""
    for n in range(55):
        remember(f"Fact number {n} about the deploys.")
    body = client_as("viewer").get(page_url(project, mode="pack")).content.decode()
    assert "page 1 of 2" in body
    (link,) = find_all(find(body, "nav", aria_label="Rows pages"), "a")
    address = urlsplit(attribute(link, "href"))
    assert (text(link), attribute(link, "rel")) == ("Next", "next")
    assert address.path == f"/ledger/{project.pk}/"
    assert parse_qs(address.query)["page"] == ["2"] and parse_qs(address.query)["mode"] == ["pack"]
    # htmx swaps the preview and puts the page in the address, so a reload keeps it.
    assert {name: attribute(link, name) for name in ("hx-get", "hx-target", "hx-push-url")} == {
        "hx-get": attribute(link, "href"),
        "hx-target": "#ledger-preview",
        "hx-push-url": "true",
    }
    second = client_as("viewer").get(page_url(project, mode="pack", page=2)).content.decode()
    assert "page 2 of 2" in second

"""The structure assistant's core: monoliths split losslessly, families grouped by subject,
headers within their limit, and the effect on coverage measured on a real assembly."""

import pytest

from memadmin.core.ledger import LedgerComposite, LedgerMemory
from memadmin.core.structure import (
    HEADER_TOKEN_LIMIT,
    MAX_MEMBERS,
    StructureMemory,
    draft_header,
    effect_of,
    lost_lines,
    suggest,
)
from memadmin.core.structure.drafting import short_line
from memadmin.core.tokens import HeuristicCounter

COUNTER = HeuristicCounter()
NOW = 1_800_000_000_000

SOP = """# Failover of the primary database
1. Page the database on-call and announce the failover in #ops.
2. Freeze deploys for every service that writes to the primary.
3. Promote the replica in the DR region with `pg_ctl promote`.
4. Point the connection pooler at the new primary and reload it.
5. Rebuild the old primary as a replica once it is reachable."""

DOSSIER = """Edge cache settings, as tuned after the October load test:
- default_ttl: 300 seconds for HTML, a day for assets
- stale_while_revalidate = 60 seconds
- purge_mode: by surrogate key only, never whole-site
- shield_region: the primary region, eu-west-1"""

SERVICES = [
    "api-gateway", "audit-writer", "billing-worker", "backup-runner", "ingest-pipeline",
    "auth-service", "edge-cache", "search-indexer", "report-builder", "media-transcoder",
]  # fmt: skip


def memory(memory_id, text, category="OPS_RULES", grouped=False):
    return StructureMemory(memory_id, category, text, COUNTER.count(text), grouped)


def ledger_memory(memory_id, text, category="CONFIG_VALUES", importance=50):
    return LedgerMemory(
        id=memory_id,
        category=category,
        content=text,
        status="active",
        importance=importance,
        expires_at=None,
        superseded_by=None,
        last_seen_at=NOW,
        verified_at=None,
        updated_at=NOW - memory_id,
    )


def timeouts(start=1, count=10, category="CONFIG_VALUES"):
    return [
        (start + i, f"{service} request timeout: {10 + 5 * i} s, chosen to stay under the "
         f"gateway's limit after the {service} incident review", category)
        for i, service in enumerate(SERVICES[:count])
    ]  # fmt: skip


def test_an_sop_becomes_a_sequence_of_its_steps_under_its_title():
    (found,) = suggest([memory(7, SOP)], counter=COUNTER)
    assert found.kind == "sop" and found.composite_type == "sequence"
    assert found.source_id == 7
    assert found.header.startswith("Failover of the primary database (5 steps): ")
    assert [d.text[:2] for d in found.details] == ["1.", "2.", "3.", "4.", "5."]
    assert not any("Failover" in d.text for d in found.details)  # the title is the header's
    assert lost_lines(SOP, found) == []


def test_a_config_dossier_becomes_one_detail_per_setting():
    (found,) = suggest([memory(8, DOSSIER, "CONFIG_VALUES")], counter=COUNTER)
    assert found.kind == "dossier" and found.composite_type == "theme"
    assert len(found.details) == 4
    assert found.details[1].text == "stale_while_revalidate = 60 seconds"
    assert lost_lines(DOSSIER, found) == []


def test_a_short_memory_or_one_without_parts_is_left_alone():
    assert suggest([memory(1, "Deploys go out on Tuesdays.")], counter=COUNTER) == []
    one_paragraph = "A long paragraph without any structure at all. " * 12
    assert suggest([memory(2, one_paragraph)], counter=COUNTER) == []


def test_a_lost_line_is_named():
    (found,) = suggest([memory(7, SOP)], counter=COUNTER)
    assert lost_lines(SOP + "\n6. Tell the incident channel it is over.", found) == [
        "6. Tell the incident channel it is over."
    ]


def test_related_small_memories_become_a_family_named_by_their_shared_phrase():
    rows = [
        *timeouts(),
        (20, "Backups run nightly at 02:00 UTC and are kept for 35 days", "CONFIG_VALUES"),
        (21, "The on-call rotation changes every Monday at 09:00", "CONFIG_VALUES"),
    ]
    found = suggest([memory(i, text, category) for i, text, category in rows], counter=COUNTER)
    (family,) = [s for s in found if s.kind == "family"]
    assert family.member_ids == tuple(range(1, 11))
    # The words they share, once, with "…" where each differs; then what each puts there.
    assert family.header.startswith(
        "… request timeout: … s, chosen to stay under the gateway's limit after the … incident "
        "review (10 memories): api-gateway, 10; audit-writer, 15;"
    )
    assert family.header_tokens <= HEADER_TOKEN_LIMIT


def test_families_stay_within_one_category_and_leave_grouped_memories_alone():
    rows = timeouts(1, 5, "CONFIG_VALUES") + timeouts(6, 5, "OPS_RULES")
    grouped = {1, 2, 3}
    found = suggest(
        [memory(i, text, category, i in grouped) for i, text, category in rows], counter=COUNTER
    )
    assert [(s.category, s.member_ids) for s in found] == [("OPS_RULES", (6, 7, 8, 9, 10))]


def test_no_family_passes_the_member_limit():
    rows = [
        (i, f"{SERVICES[i % 10]}-{i} request timeout: {i} s, chosen after the incident review")
        for i in range(1, 80)
    ]
    found = suggest([memory(i, text) for i, text in rows], counter=COUNTER)
    assert found and all(3 <= len(s.details) <= MAX_MEMBERS for s in found)
    assert sum(len(s.details) for s in found) >= 75


def test_the_same_memories_give_the_same_suggestions():
    rows = [memory(i, text, category) for i, text, category in timeouts()] + [memory(30, SOP)]
    assert suggest(rows, counter=COUNTER) == suggest(list(reversed(rows)), counter=COUNTER)


@pytest.mark.parametrize("limit", [30, 60, 120])
def test_a_header_keeps_within_its_limit_and_says_how_many_it_left_out(limit):
    texts = [text for _, text, _ in timeouts()]
    header = draft_header("Request timeout", texts, counter=COUNTER, limit=limit)
    assert COUNTER.count(header) <= limit
    assert header.startswith("Request timeout (10 details)")
    shown = header.count(" s, chosen")
    assert shown >= 1
    if shown < 10:
        assert header.endswith(f"…and {10 - shown} more")


def test_a_short_line_drops_list_marks_and_cuts_at_the_sentence():
    assert short_line("3. Promote the replica. Then wait.") == "Promote the replica"
    assert short_line("- a b c d e f g h") == "a b c d e f…"
    assert short_line("api-gateway: 30 s. Reviewed.") == "api-gateway"


def test_a_short_line_leaves_out_the_subject_it_is_labelled_with():
    text = "edge-cache request timeout: 30 s. Reviewed."
    assert short_line(text, subject="Request timeout") == "edge-cache: 30 s"
    # Only a label is left out; the subject inside a sentence stays where it is.
    text = "edge-cache keeps 30 days of job history"
    assert short_line(text, subject="days of job") == "edge-cache keeps 30 days of job…"


def test_grouping_raises_coverage_at_the_same_budget():
    rows = [
        (i, f"{SERVICES[i % 10]} setting {i}: request timeout of {i} s, kept under the "
         f"gateway's limit; reviewed after the capacity test of week {i}")
        for i in range(1, 201)
    ]  # fmt: skip
    memories = [ledger_memory(i, text) for i, text in rows]
    found = suggest([memory(i, text, "CONFIG_VALUES") for i, text in rows], counter=COUNTER)
    effect = effect_of(memories, [], found, budget=1500, counter=COUNTER, now_ms=NOW)
    assert effect.live == 200
    assert effect.before_reached == effect.before_injected < 60
    assert effect.after_reached >= 2 * effect.before_reached
    assert effect.to_json()["after"]["share"] == effect.after_share


def test_a_fragmented_monolith_counts_as_reached_through_its_header():
    memories = [ledger_memory(1, SOP, "OPS_RULES"), ledger_memory(2, "Deploys go out on Tuesdays")]
    found = suggest([memory(1, SOP), memory(2, "Deploys go out on Tuesdays")], counter=COUNTER)
    effect = effect_of(memories, [], found, budget=1500, counter=COUNTER, now_ms=NOW)
    assert (effect.live, effect.before_reached, effect.after_reached) == (2, 2, 2)
    assert effect.after_injected == 2  # the header and the plain memory; the steps are details


def test_existing_composites_are_kept_in_the_store_after():
    memories = [ledger_memory(i, f"note {i} about the cache") for i in range(1, 5)]
    composite = LedgerComposite(1, "theme", 1, (2, 3, 4))
    effect = effect_of(memories, [composite], [], budget=1500, counter=COUNTER, now_ms=NOW)
    assert effect.after_reached == effect.live == 4


def test_a_title_the_header_repeats_is_kept_once():
    from memadmin.core.fragments import apply_boundaries, title_heading_end

    (found,) = suggest([memory(7, SOP)], counter=COUNTER)
    # Applied as the fragment tool applies a split, with the drafted header as its summary.
    assert title_heading_end(SOP, found.header) is not None
    details = apply_boundaries(SOP, list(found.boundaries), summary=found.header)
    assert [d.text for d in details] == [d.text for d in found.details]
    # A plain title line (no heading mark, no full stop, more lines after) counts too.
    assert (
        title_heading_end(DOSSIER, "Edge cache settings, as tuned after the October load test")
        == 58
    )
    assert (
        title_heading_end("Deploys go out on Tuesdays.\nAlways.", "Deploys go out on Tuesdays")
        is None
    )


def test_a_drafted_header_is_drafted_again_from_its_details_as_they_are():
    texts = [text for _, text, _ in timeouts(count=4)]
    from memadmin.core.structure import redraft
    from memadmin.core.structure.drafting import draft_family_header

    header = draft_family_header(texts, counter=COUNTER)

    assert redraft(header, texts, counter=COUNTER) == header
    changed = [texts[0].replace("10 s", "45 s"), *texts[1:], texts[0].replace("api", "web")]
    again = redraft(header, changed, counter=COUNTER)
    assert again.startswith("… request timeout: … s, chosen")
    assert "(5 memories): api-gateway, 45;" in again
    # A header written by hand is its writer's: no draft replaces their words.
    assert redraft("Timeouts we chose. Reviewed yearly.", texts, counter=COUNTER) is None


def test_category_headers_of_two_categories_gather_under_a_theme_and_no_deeper():
    backups_ops = "Backups: run the restore drill monthly\nBackups: verify the snapshot checksum"
    backups_cfg = "Backups: keep snapshots 35 days\nBackups: snapshot window 02:00 UTC"
    headers = [
        StructureMemory(1, "OPS_RULES", "Backup drills (2 memories): a; b", 10, True, backups_ops),
        StructureMemory(
            2, "CONFIG_VALUES", "Backup retention (2 memories): a; b", 10, True, backups_cfg
        ),
        StructureMemory(
            3, "CONFIG_VALUES", "Tabs (2 memories): a; b", 10, True, "Use tabs\nNo tabs"
        ),
    ]
    (theme,) = suggest(headers, counter=COUNTER)
    assert theme.kind == "theme" and theme.composite_type == "theme"
    assert theme.member_ids == (1, 2)
    assert theme.header.startswith(
        "Theme: backups, backup (2 headers): Backup drills; Backup retention"
    )
    # A memory without details (a theme header, a member) is never taken into a theme.
    assert suggest([h._replace(details=None) for h in headers], counter=COUNTER) == []


def test_a_theme_makes_every_detail_below_it_reachable():
    memories = [ledger_memory(i, f"backup fact {i}", "CONFIG_VALUES") for i in range(1, 7)]
    memories += [
        ledger_memory(7, "Backups A (3 details)"),
        ledger_memory(8, "Backups B (3 details)"),
    ]
    composites = [
        LedgerComposite(1, "theme", 7, (1, 2, 3)),
        LedgerComposite(2, "theme", 8, (4, 5, 6)),
    ]
    headers = [
        StructureMemory(7, "CONFIG_VALUES", "Backups A", 5, True, "backup restore drill snapshot"),
        StructureMemory(8, "OPS_RULES", "Backups B", 5, True, "backup restore drill snapshot"),
    ]
    themes = suggest(headers, counter=COUNTER)
    effect = effect_of(memories, composites, themes, budget=500, counter=COUNTER, now_ms=NOW)
    assert effect.after_reached == effect.live == 8

"""Bulk curation from the memory list: plan, confirm with a count, apply (both engines)."""

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from memadmin.audit.models import AuditEvent
from memadmin.composites.models import CompositeMember
from memadmin.composites.services import composite_create
from memadmin.curation.bulk_services import StalePlan, bulk_apply, bulk_plan
from memadmin.curation.merge_services import memory_merge
from memadmin.memories.archive_services import memory_archive
from memadmin.memories.models import Memory
from memadmin.memories.selectors import memories_version
from memadmin.memories.services import memory_create, memory_update
from tests.html_tree import definitions, find, find_all, submitted, text

pytestmark = pytest.mark.django_db


@pytest.fixture
def rows(project):
    return [
        memory_create(project=project, category="OPS_RULES", content=f"Rule {i}.", actor="agent")
        for i in range(4)
    ]


def fresh(memories):
    return list(Memory.objects.filter(pk__in=[m.pk for m in memories]).order_by("pk"))


def reasons(page):
    """The reasons a memory's timeline shows ("Why: ..."), each in its own emphasis."""
    return [text(find(why, "em")) for why in find_all(page, "p", class_="timeline-why")]


def confirmation(page):
    """The review's confirmation form, the one form that posts to the bulk view."""
    return find(page, "form", method="post", action=reverse("memories:bulk"))


def reason_field(page):
    return find(confirmation(page), "input", type="text", name="reason")


def row_labels(page):
    """The category and status shown on each row of the review's list of changes."""
    return [text(label) for label in find_all(find(page, "ul", class_="bulk-list"), "small")]


def test_archive_plan_counts_only_rows_that_change(rows):
    """Rows already archived are counted apart."""
    memory_update(memory=rows[0], status="archived", actor="agent")
    plan = bulk_plan(action="archive", memories=fresh(rows))
    assert (len(plan.change), len(plan.unchanged)) == (3, 1)


def test_archive_writes_history_and_one_event_per_row(rows):
    """Each archived row gets a version with the actor and an audit event."""
    bulk_apply(action="archive", memory_ids=[m.pk for m in rows], expected=4, actor="agent")
    assert {m.status for m in fresh(rows)} == {"archived"}
    assert AuditEvent.objects.filter(action="archived").count() == 4
    assert rows[0].history.first().history_actor == "agent"


def test_archive_keeps_the_reason_on_every_row_as_a_single_archive_does(rows):
    """The reason goes to each row's history, audit event and metadata, as in memory_archive."""
    single = memory_archive(memory=rows[0], actor="agent", reason="Superseded by the runbook")
    bulk_apply(
        action="archive",
        memory_ids=[m.pk for m in rows[1:]],
        expected=3,
        actor="agent",
        reason="Superseded by the runbook",
    )
    single_event = AuditEvent.objects.get(action="archived", object_id=str(single.pk))
    for memory in fresh(rows):
        event = AuditEvent.objects.get(action="archived", object_id=str(memory.pk))
        assert (event.reason, event.changes) == (single_event.reason, single_event.changes)
        assert memory.history.first().history_change_reason == "Superseded by the runbook"
        assert memory.metadata == {"archive_reason": "Superseded by the runbook"}
        assert memory.status == "archived"


def test_archive_without_a_reason_names_the_bulk_action(rows):
    """No reason given: the history says it was a bulk archive, and no reason is made up."""
    bulk_apply(action="archive", memory_ids=[m.pk for m in rows], expected=4, actor="agent")
    for memory in fresh(rows):
        assert memory.history.first().history_change_reason == "bulk archive"
        assert memory.metadata == {}
    assert set(AuditEvent.objects.filter(action="archived").values_list("reason", flat=True)) == {
        ""
    }


def test_a_moved_count_refuses_and_writes_nothing(rows):
    """If the count confirmed is no longer true, nothing is written."""
    with pytest.raises(ValidationError, match="changed since you reviewed"):
        bulk_apply(action="archive", memory_ids=[m.pk for m in rows], expected=3, actor="agent")
    assert {m.status for m in fresh(rows)} == {"active"}


def archive_as_reviewed(rows, reviewed):
    """Confirm the archive of `rows` with the count and fingerprint of the `reviewed` plan."""
    return bulk_apply(
        action="archive",
        memory_ids=[m.pk for m in rows],
        expected=len(reviewed.change),
        fingerprint=reviewed.fingerprint(),
        actor="agent",
    )


def test_a_row_changed_since_the_review_refuses_and_writes_nothing(rows):
    """Same count, but a reviewed row changed status: refused with the plan as it is now."""
    reviewed = bulk_plan(action="archive", memories=fresh(rows))
    memory_update(memory=rows[0], status="permanent", actor="agent")
    with pytest.raises(StalePlan, match="changed since you reviewed") as refused:
        archive_as_reviewed(rows, reviewed)
    assert [m.status for m in refused.value.plan.change] == ["permanent", *["active"] * 3]
    assert [m.status for m in fresh(rows)] == ["permanent", *["active"] * 3]
    assert not AuditEvent.objects.filter(action="archived").exists()


def test_the_fingerprint_holds_while_nothing_changes(rows):
    """Planning the same rows twice gives the same fingerprint, and the apply goes through."""
    reviewed = bulk_plan(action="archive", memories=fresh(rows))
    assert bulk_plan(action="archive", memories=fresh(rows)).fingerprint() == (
        reviewed.fingerprint()
    )
    archive_as_reviewed(rows, reviewed)
    assert {m.status for m in fresh(rows)} == {"archived"}


def test_restore_refuses_a_superseded_memory(rows):
    """A merged source is restored by undoing its merge, not in bulk."""
    result = memory_merge(memories=rows[:2], content="Rules 0 and 1.", actor="agent")
    memory_update(memory=rows[2], status="archived", actor="agent")
    plan = bulk_plan(action="restore", memories=fresh(rows))
    assert [m.pk for m in plan.change] == [rows[2].pk]
    assert [why for _, why in plan.refused] == [
        f"merged into #{result.pk}: undo the merge from #{result.pk}'s page instead"
    ] * 2


@pytest.fixture
def archived_mix(project):
    """Four archived memories: two were permanent, one active, one was never anything else."""
    was_permanent = memory_create(
        project=project,
        category="OPS_RULES",
        content="Permanent.",
        actor="agent",
        status="permanent",
    )
    was_active = memory_create(
        project=project, category="OPS_RULES", content="Active.", actor="agent"
    )
    made_permanent = memory_create(
        project=project, category="OPS_RULES", content="Promoted.", actor="agent"
    )
    memory_update(memory=made_permanent, status="permanent", actor="agent")
    born_archived = memory_create(
        project=project, category="OPS_RULES", content="Imported.", actor="agent", status="archived"
    )
    memories = [was_permanent, was_active, made_permanent]
    bulk_apply(action="archive", memory_ids=[m.pk for m in memories], expected=3, actor="agent")
    return [*fresh(memories), born_archived]


def test_restore_brings_back_the_status_each_had_before_it_was_archived(archived_mix):
    """Permanent memories come back permanent; the rest, and any without a history, active."""
    plan = bulk_plan(action="restore", memories=fresh(archived_mix))
    assert plan.restore_counts() == [("active", 2), ("permanent", 2)]
    before = AuditEvent.objects.order_by("-id").values_list("id", flat=True).first()
    bulk_apply(action="restore", memory_ids=[m.pk for m in archived_mix], expected=4, actor="agent")
    assert [m.status for m in fresh(archived_mix)] == ["permanent", "active", "permanent", "active"]
    events = AuditEvent.objects.filter(action="restored", id__gt=before).order_by("id")
    assert [e.changes["status"] for e in events] == [
        ["archived", "permanent"],
        ["archived", "active"],
        ["archived", "permanent"],
        ["archived", "active"],
    ]


def test_restore_drops_the_archive_reason_from_each_memory(rows, client_as):
    """Restored, no memory shows an archive reason; each history still has it."""
    bulk_apply(
        action="archive",
        memory_ids=[m.pk for m in rows[:2]],
        expected=2,
        actor="agent",
        reason="Old <b>rollout</b> notes",
    )
    client = client_as("viewer")
    page = client.get(reverse("memories:detail", args=[rows[0].pk])).content.decode()
    metadata = definitions(find(page, "dl", class_="fields"))["Metadata"]
    assert text(find(metadata, "code")) == '{"archive_reason": "Old <b>rollout</b> notes"}'
    bulk_apply(action="restore", memory_ids=[m.pk for m in rows], expected=2, actor="agent")
    for memory in fresh(rows[:2]):
        assert (memory.status, memory.metadata) == ("active", {})
        assert memory.history.all()[1].metadata == {"archive_reason": "Old <b>rollout</b> notes"}
        event = AuditEvent.objects.filter(action="restored", object_id=str(memory.pk)).get()
        assert event.changes["metadata"] == [{"archive_reason": "Old <b>rollout</b> notes"}, {}]
        page = client.get(reverse("memories:detail", args=[memory.pk])).content.decode()
        assert "archive_reason" not in page
        assert "Metadata" not in [text(term) for term in find_all(page, "dt")]
        assert "Old <b>rollout</b> notes" in reasons(page)  # in the history


def test_restore_reads_the_status_before_the_latest_archive(project):
    """A memory archived twice comes back as it was before the second time."""
    memory = memory_create(
        project=project, category="OPS_RULES", content="Twice.", actor="agent", status="permanent"
    )
    memory_archive(memory=memory, actor="agent")
    bulk_apply(action="restore", memory_ids=[memory.pk], expected=1, actor="agent")
    assert fresh([memory])[0].status == "permanent"
    memory_update(memory=memory, status="active", actor="agent")
    memory_archive(memory=memory, actor="agent")
    bulk_apply(action="restore", memory_ids=[memory.pk], expected=1, actor="agent")
    assert fresh([memory])[0].status == "active"


def test_move_refuses_unknown_categories_and_duplicates(rows, project):
    """Moving needs a category of the pack and no identical text there."""
    memory_create(project=project, category="RESEARCH", content="Rule 1.", actor="agent")
    plan = bulk_plan(action="move", memories=fresh(rows), category="RESEARCH")
    assert len(plan.change) == 3
    assert plan.refused[0][1] == "an identical memory is already in RESEARCH"
    with pytest.raises(ValidationError, match="Choose"):
        bulk_plan(action="move", memories=fresh(rows), category="")
    plan = bulk_plan(action="move", memories=fresh(rows), category="PROJECT_RULES")
    assert len(plan.refused) == 4


def test_move_recategorises(rows):
    """Moved rows change category and are recorded as recategorised."""
    bulk_apply(
        action="move",
        memory_ids=[m.pk for m in rows],
        expected=4,
        category="RESEARCH",
        actor="agent",
    )
    assert {m.category for m in fresh(rows)} == {"RESEARCH"}
    assert AuditEvent.objects.filter(action="recategorised").count() == 4


def test_add_to_composite_skips_the_head_and_members(rows):
    """The head and present members are not added again."""
    composite = composite_create(head=rows[0], type="theme", members=[rows[1]], actor="agent")
    plan = bulk_apply(
        action="add",
        memory_ids=[m.pk for m in rows],
        expected=2,
        composite=composite,
        actor="agent",
    )
    assert len(plan.refused) == 1 and len(plan.unchanged) == 1
    assert list(
        CompositeMember.objects.filter(composite=composite)
        .order_by("position")
        .values_list("member_id", flat=True)
    ) == [rows[1].pk, rows[2].pk, rows[3].pk]


def test_adding_to_a_composite_under_an_archived_head_is_refused(rows):
    """The review already refuses, naming the head, and nothing is written."""
    composite = composite_create(head=rows[0], type="theme", members=[rows[1]], actor="agent")
    memory_update(memory=rows[0], status="archived", actor="agent")
    composite.refresh_from_db()
    with pytest.raises(ValidationError, match=f"#{rows[0].display_id} is archived"):
        bulk_plan(action="add", memories=fresh(rows[2:]), composite=composite)
    with pytest.raises(ValidationError, match="archived"):
        bulk_apply(
            action="add", memory_ids=[rows[2].pk], expected=1, composite=composite, actor="agent"
        )
    assert CompositeMember.objects.filter(composite=composite).count() == 1


class TestPages:
    def test_list_offers_selection_to_editors_only(self, client_as, rows):
        """Viewers see no checkboxes; editors do."""
        viewer = client_as("viewer").get(reverse("memories:list")).content.decode()
        assert find_all(viewer, name="ids") == [] and find_all(viewer, "form", id="bulk-form") == []
        editor = client_as("editor").get(reverse("memories:list")).content.decode()
        assert find(editor, "form", id="bulk-form", method="post", action=reverse("memories:bulk"))
        boxes = find_all(editor, "input", type="checkbox", name="ids", form="bulk-form")
        assert sorted(int(box.attributes["value"]) for box in boxes) == [m.pk for m in rows]

    def test_review_says_how_many_rows_will_change(self, client_as, rows):
        """The first post shows the count; nothing is written yet."""
        memory_update(memory=rows[0], status="archived", actor="agent")
        response = client_as("editor").post(
            reverse("memories:bulk"), {"ids": [m.pk for m in rows], "action": "archive"}
        )
        body = response.content.decode()
        assert "3 rows will change" in body
        assert find(confirmation(body), "input", type="hidden", name="expected", value="3")
        assert Memory.objects.filter(status="archived").count() == 1

    def test_confirm_applies_and_returns_to_the_list(self, client_as, rows):
        """The confirmation post applies the action and goes back with a message."""
        response = client_as("editor").post(
            reverse("memories:bulk"),
            {
                "ids": [m.pk for m in rows],
                "action": "archive",
                "expected": 4,
                "confirm": "1",
                "next": "/memories/?status=active",
            },
        )
        assert response.url == "/memories/?status=active"
        assert Memory.objects.filter(status="archived").count() == 4

    def test_archive_asks_why_and_shows_it_on_each_memory(self, client_as, rows):
        """The review offers an optional reason; confirmed, each memory's history shows it."""
        client = client_as("editor")
        ids = [m.pk for m in rows[:2]]
        review = client.post(reverse("memories:bulk"), {"ids": ids, "action": "archive"})
        form = confirmation(review.content.decode())
        assert text(find(form, "label", for_="id_reason")) == "Why (optional)"
        assert find(form, "input", type="text", name="reason", id="id_reason")
        client.post(
            reverse("memories:bulk"),
            {
                "ids": ids,
                "action": "archive",
                "expected": 2,
                "confirm": "1",
                "reason": "Old <b>rollout</b> notes",
            },
        )
        for memory in fresh(rows[:2]):
            assert memory.status == "archived"
            page = client.get(reverse("memories:detail", args=[memory.pk])).content.decode()
            assert "Old <b>rollout</b> notes" in reasons(page)
        assert {m.status for m in fresh(rows[2:])} == {"active"}

    def test_restore_says_how_many_go_back_to_each_status(self, client_as, archived_mix):
        """The review counts and names the status each memory returns to; so does the message."""
        client = client_as("editor")
        ids = [m.pk for m in archived_mix]
        review = client.post(reverse("memories:bulk"), {"ids": ids, "action": "restore"})
        body = review.content.decode()
        summary = find(body, "p", class_="bulk-summary", role="status")
        assert text(find(summary, "strong")) == "4 rows will change"
        assert text(summary) == "4 rows will change (2 back to active, 2 back to permanent)."
        assert body.count("archived → permanent") == 2
        assert body.count("archived → active") == 2
        labels = row_labels(body)
        assert sorted(label.split(" · ")[1] for label in labels) == [
            "archived → active",
            "archived → active",
            "archived → permanent",
            "archived → permanent",
        ]
        done = client.post(
            reverse("memories:bulk"),
            {"ids": ids, "action": "restore", "expected": 4, "confirm": "1", "next": "/memories/"},
            follow=True,
        )
        assert "Restored 4 memories: 2 to active, 2 to permanent." in done.content.decode()
        assert [m.status for m in fresh(archived_mix)] == [
            "permanent",
            "active",
            "permanent",
            "active",
        ]

    def test_a_reason_too_long_is_refused_and_nothing_is_written(self, client_as, rows):
        """An over-long reason shows the review again, the limit named and the text kept."""
        response = client_as("editor").post(
            reverse("memories:bulk"),
            {
                "ids": [rows[0].pk],
                "action": "archive",
                "expected": 1,
                "confirm": "1",
                "reason": "x" * 501,
                "next": "/memories/",
            },
        )
        body = response.content.decode()
        assert response.status_code == 400
        assert "Keep the reason to 500 characters at most." in body
        assert reason_field(body).attributes["value"] == "x" * 501
        assert "1 row will change" in body
        assert find(confirmation(body), "input", type="hidden", name="next", value="/memories/")
        assert fresh(rows)[0].status == "active"

    def confirm(self, client, review, **changes):
        """Post the confirmation form of a review page, as the person would."""
        data = {}
        for name, value in submitted(confirmation(review.content.decode())):
            data.setdefault(name, []).append(value)
        return client.post(reverse("memories:bulk"), {**data, "confirm": "1", **changes})

    def test_a_selection_changed_since_the_review_is_shown_again_with_the_reason(
        self, client_as, rows
    ):
        """The count moved: the review comes back as it is now, the reason kept; nothing written."""
        client = client_as("editor")
        ids = [m.pk for m in rows]
        review = client.post(
            reverse("memories:bulk"), {"ids": ids, "action": "archive", "next": "/memories/"}
        )
        memory_archive(memory=rows[0], actor="agent")
        refused = self.confirm(client, review, reason="Old <b>rollout</b> notes")
        body = refused.content.decode()
        assert refused.status_code == 409
        alert = find(body, "div", class_="refusal", role="alert")
        assert "changed since you reviewed it: 3 memories would change now, not 4" in text(alert)
        assert "3 rows will change" in body and "1 already as asked" in body
        assert reason_field(body).attributes["value"] == "Old <b>rollout</b> notes"
        assert [m.status for m in fresh(rows)] == ["archived", "active", "active", "active"]
        assert AuditEvent.objects.filter(action="archived").count() == 1
        done = self.confirm(client, refused, reason="Old rollout notes")
        assert done.url == "/memories/"
        assert {m.status for m in fresh(rows)} == {"archived"}
        assert set(
            AuditEvent.objects.filter(action="archived", reason="Old rollout notes").values_list(
                "object_id", flat=True
            )
        ) == {str(m.pk) for m in rows[1:]}

    def test_a_status_changed_since_the_review_is_shown_again_with_the_reason(
        self, client_as, rows
    ):
        """Same count, but a row became permanent: the review shows it; nothing is written."""
        client = client_as("editor")
        review = client.post(
            reverse("memories:bulk"), {"ids": [m.pk for m in rows[:2]], "action": "archive"}
        )
        assert row_labels(review.content.decode()) == ["OPS_RULES · active"] * 2
        memory_update(memory=rows[0], status="permanent", actor="agent")
        refused = self.confirm(client, review, reason="Superseded by the runbook")
        body = refused.content.decode()
        assert refused.status_code == 409
        assert "someone else changed one of these memories meanwhile" in body
        assert row_labels(body) == ["OPS_RULES · permanent", "OPS_RULES · active"]
        assert reason_field(body).attributes["value"] == "Superseded by the runbook"
        assert [m.status for m in fresh(rows[:2])] == ["permanent", "active"]
        assert not AuditEvent.objects.filter(action="archived").exists()
        self.confirm(client, refused, reason="Superseded by the runbook")
        assert [m.status for m in fresh(rows[:2])] == ["archived", "archived"]

    def test_a_selection_left_with_nothing_to_change_keeps_the_reason(self, client_as, rows):
        """Everything was archived meanwhile: no confirmation, but the reason is still there."""
        client = client_as("editor")
        review = client.post(reverse("memories:bulk"), {"ids": [rows[0].pk], "action": "archive"})
        memory_archive(memory=rows[0], actor="agent")
        refused = self.confirm(client, review, reason="Stale")
        body = refused.content.decode()
        assert refused.status_code == 409
        assert "0 rows will change" in body and find_all(body, name="confirm") == []
        assert reason_field(body).attributes["value"] == "Stale"

    def test_a_head_archived_since_the_review_is_shown_again_with_the_reason(self, client_as, rows):
        """The service refuses the confirmation: the review says why and keeps the reason."""
        composite = composite_create(head=rows[0], type="theme", actor="agent")
        client = client_as("editor")
        review = client.post(
            reverse("memories:bulk"),
            {"ids": [rows[2].pk], "action": "add", "composite": composite.pk, "next": "/memories/"},
        )
        assert "1 row will change" in review.content.decode()
        memory_update(memory=rows[0], status="archived", actor="agent")
        events = AuditEvent.objects.count()
        refused = self.confirm(client, review, reason="Old <b>rollout</b> notes")
        body = refused.content.decode()
        assert refused.status_code == 409
        assert text(find(body, "h1")) == "Confirm: add to a composite"
        alert = find(body, "div", class_="refusal", role="alert")
        assert f"#{rows[0].display_id} is archived" in text(alert)
        assert reason_field(body).attributes["value"] == "Old <b>rollout</b> notes"
        assert find_all(body, name="confirm") == []
        assert not CompositeMember.objects.exists()
        assert AuditEvent.objects.count() == events

    def test_review_under_an_archived_head_goes_back_with_the_reason(self, client_as, rows):
        """No confirmation is offered for a change the service would refuse."""
        composite = composite_create(head=rows[0], type="theme", actor="agent")
        memory_update(memory=rows[0], status="archived", actor="agent")
        client = client_as("editor")
        response = client.post(
            reverse("memories:bulk"),
            {"ids": [rows[2].pk], "action": "add", "composite": composite.pk, "next": "/memories/"},
            follow=True,
        )
        body = response.content.decode()
        assert "will change" not in body
        assert f"#{rows[0].display_id} is archived" in body
        assert not CompositeMember.objects.exists()

    def test_merge_action_leads_to_the_merge_page(self, client_as, rows):
        """Choosing merge goes to a page where the person writes the text."""
        client = client_as("editor")
        response = client.post(
            reverse("memories:bulk"), {"ids": [rows[0].pk, rows[1].pk], "action": "merge"}
        )
        assert response.url.startswith(reverse("memories:merge"))
        page = client.get(response.url).content.decode()
        assert "Rule 0." in page and "Rule 1." in page
        response = client.post(
            reverse("memories:merge"),
            {
                "ids": [rows[0].pk, rows[1].pk],
                "content": "Both rules.",
                "sources_version": memories_version(rows[:2]),
            },
        )
        result = Memory.objects.get(content="Both rules.")
        assert response.url == reverse("memories:detail", args=[result.pk])

    def test_single_memory_merge_is_refused_on_the_page(self, client_as, rows):
        """The refusal is shown and nothing is written."""
        response = client_as("editor").post(
            reverse("memories:merge"),
            {
                "ids": [rows[0].pk],
                "content": "Alone.",
                "sources_version": memories_version(rows[:1]),
            },
        )
        assert response.status_code == 400
        assert "two or more" in response.content.decode()

    def test_undo_merge_from_the_result_page(self, client_as, rows):
        """The result's page offers the undo, which restores the sources."""
        client = client_as("editor")
        result = memory_merge(memories=rows[:2], content="Both.", actor="agent")
        page = client.get(reverse("memories:detail", args=[result.pk])).content.decode()
        assert "Undo this merge" in page
        client.post(reverse("memories:unmerge", args=[result.pk]))
        assert {m.status for m in fresh(rows[:2])} == {"active"}


class TestStaleMerge:
    def merge_form(self, page: str) -> dict:
        """Return what a browser posts from the merge page's form as it stands."""
        (form,) = find_all(page, "form", method="post", action=reverse("memories:merge"))
        posted: dict = {}
        for name, value in submitted(form):
            posted.setdefault(name, []).append(value)
        posted.pop("csrfmiddlewaretoken", None)
        return posted

    def test_a_merge_over_a_source_saved_since_is_refused(self, client_as, rows):
        """A source was edited after the merge page was loaded: 409, nothing merged or
        archived, the page lists it as it is now with the typed text kept."""
        client = client_as("editor")
        page = client.get(reverse("memories:merge"), {"ids": [rows[0].pk, rows[1].pk]})
        shown = self.merge_form(page.content.decode())
        memory_update(memory=rows[1], actor="agent", content="Rule 1, rewritten meanwhile.")
        before = (Memory.objects.count(), AuditEvent.objects.count())
        response = client.post(reverse("memories:merge"), {**shown, "content": "Both rules."})
        body = response.content.decode()
        assert response.status_code == 409
        assert "Someone saved one of these memories since this page was loaded" in body
        assert "Rule 1, rewritten meanwhile." in body and "Both rules." in body
        assert (Memory.objects.count(), AuditEvent.objects.count()) == before
        assert {m.status for m in fresh(rows[:2])} == {"active"}
        # The page shown again carries the sources' version now: merging again goes through.
        response = client.post(reverse("memories:merge"), self.merge_form(body))
        assert response.status_code == 302
        assert {m.status for m in fresh(rows[:2])} == {"archived"}
        assert Memory.objects.get(pk=fresh(rows[:2])[0].superseded_by_id).content == "Both rules."

    def test_a_merge_that_says_no_version_is_refused(self, client_as, rows):
        """A merge that does not say which versions it was written from merges nothing."""
        before = (Memory.objects.count(), AuditEvent.objects.count())
        response = client_as("editor").post(
            reverse("memories:merge"), {"ids": [rows[0].pk, rows[1].pk], "content": "Both."}
        )
        assert response.status_code == 409
        assert "did not say which versions" in response.content.decode()
        assert (Memory.objects.count(), AuditEvent.objects.count()) == before

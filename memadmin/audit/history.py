"""Stamp every simple-history row with the actor and reason of the change under way."""

from django.contrib.auth import get_user_model
from django.dispatch import receiver
from simple_history.signals import pre_create_historical_record

from .context import current


@receiver(pre_create_historical_record)
def stamp_actor(sender, instance, history_instance, **kwargs) -> None:
    """Copy the current actor and reason onto the historical row."""
    acting = current()
    if acting is None:
        return
    history_instance.history_actor = acting.actor.label
    history_instance.history_actor_kind = acting.actor.kind
    if acting.actor.user_id is not None:
        history_instance.history_user_id = acting.actor.user_id
    if acting.reason and not history_instance.history_change_reason:
        history_instance.history_change_reason = acting.reason


def history_bulk_create(model, instances: list) -> None:
    """Write the first versions of `instances`, rows of `model` just created together, in one
    query, stamped as `stamp_actor` stamps a version a save writes (simple-history's bulk
    helper sends no signal per row)."""
    acting = current()
    options = {"default_change_reason": None}
    if acting is not None:
        options["custom_historical_attrs"] = {
            "history_actor": acting.actor.label,
            "history_actor_kind": acting.actor.kind,
        }
        options["default_change_reason"] = acting.reason or None
        if acting.actor.user_id is not None:
            options["default_user"] = get_user_model()(pk=acting.actor.user_id)
    model.history.bulk_history_create(instances, **options)

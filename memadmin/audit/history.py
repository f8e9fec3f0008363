"""Stamp every simple-history row with the actor and reason of the change under way."""

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

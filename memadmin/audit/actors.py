"""Who made a change: a signed-in person, or an agent identity for the command line and syncs."""

from dataclasses import dataclass

AGENT_IDENTITIES = ("historian", "dreamer", "agent", "import", "system")


@dataclass(frozen=True)
class Actor:
    """A change's author as the audit trail records it."""

    label: str
    kind: str  # "person" or "agent"
    user_id: int | None = None

    @classmethod
    def agent(cls, name: str) -> "Actor":
        """Return the actor for an agent identity such as "historian" or "import"."""
        if name not in AGENT_IDENTITIES:
            raise ValueError(
                f"unknown agent identity {name!r}; known: {', '.join(AGENT_IDENTITIES)}"
            )
        return cls(label=name, kind="agent")

    @classmethod
    def person(cls, user) -> "Actor":
        """Return the actor for a signed-in person."""
        if user is None or not user.is_authenticated:
            raise ValueError("an anonymous visitor cannot change the store")
        return cls(label=user.get_username(), kind="person", user_id=user.pk)


def as_actor(actor) -> Actor:
    """Accept an Actor, a user or an agent identity string, and return an Actor."""
    if isinstance(actor, Actor):
        return actor
    if isinstance(actor, str):
        return Actor.agent(actor)
    return Actor.person(actor)

"""Choose the token counter behind a preview, and say so when it is not the one asked for."""

from dataclasses import dataclass

from memadmin.core.tokens import (
    CounterUnavailable,
    HeuristicCounter,
    TokenCounter,
    get_counter,
)

HEURISTIC_NOTICE = (
    "Using the heuristic (ceil(length / 3.5), magic-context's fallback) instead of the "
    "claude counter: {why}."
)


@dataclass(frozen=True, slots=True)
class CounterChoice:
    """The counter a preview uses, and a notice when it had to fall back to the heuristic."""

    counter: TokenCounter
    notice: str = ""

    @property
    def name(self) -> str:
        """Return the counter's name, as the page and the command line show it."""
        return self.counter.name


def choose_counter(name: str | None = None, *, fall_back: bool = True) -> CounterChoice:
    """Return the counter called `name`, or the claude one when no name is given.

    When claude cannot work here the heuristic stands in with a notice, unless `fall_back`
    is False (an explicit request on the command line): then CounterUnavailable is raised.
    An unknown name raises UnknownCounter.
    """
    wanted = name or "claude"
    try:
        return CounterChoice(get_counter(wanted))
    except CounterUnavailable as error:
        if wanted != "claude" or not fall_back:
            raise
        notice = HEURISTIC_NOTICE.format(why=error)
        return CounterChoice(HeuristicCounter(), notice)

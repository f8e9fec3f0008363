"""Someone else acting while a service runs: in a thread of its own, on a connection of its own.

The tests of the write races start it from inside a step of the service (a patched step), give
it a second, then let the step go on: an action nothing holds back is done by then, one a lock
holds waits until the service's transaction ends.
"""

import threading

from django.db import connection

# Long enough for an action nothing holds back: a save, an edit, a resolution.
GIVEN_SECONDS = 1.0


class Meanwhile:
    """Run ``action`` once in a thread of its own; `outcome` is what it returned or raised."""

    def __init__(self, action):
        self._action = action
        self._outcome: list = []
        self._thread = threading.Thread(target=self._run)

    def _run(self) -> None:
        try:
            self._outcome.append(self._action())
        except Exception as error:  # the test names whatever went wrong
            self._outcome.append(error)
        finally:
            connection.close()

    def start(self) -> None:
        """Start the action and give it a second before the caller goes on."""
        self._thread.start()
        self._thread.join(timeout=GIVEN_SECONDS)

    def outcome(self):
        """Wait for the action; return what it returned, or the exception it raised."""
        self._thread.join(timeout=30)
        assert self._outcome, "the action did not end"
        return self._outcome[0]

"""The phases a sync reports, and a text progress bar for the command line that draws them."""

import time
from typing import TextIO

WIDTH = 30
PHASES = {"read": "reading the store", "compare": "comparing", "write": "writing"}
MIN_INTERVAL_SECONDS = 0.1


class ProgressBar:
    """Draw `phase [#####.....] done/total` on one line, redrawn in place on a terminal.

    Off a terminal (a log, a pipe) each phase prints one line when it completes, so logs
    stay readable. Call the bar as ``bar(phase, done, total)``; ``close()`` ends the line.
    """

    def __init__(self, stream: TextIO):
        self.stream = stream
        self.interactive = bool(getattr(stream, "isatty", lambda: False)())
        self.phase = ""
        self.last_draw = 0.0
        self.open_line = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase != self.phase:
            self.close()
            self.phase = phase
        finished = done >= total
        if self.interactive:
            now = time.monotonic()
            if finished or now - self.last_draw >= MIN_INTERVAL_SECONDS:
                self.last_draw = now
                self._write("\r" + render(phase, done, total), end="")
                self.open_line = True
        elif finished:
            self._write(render(phase, done, total))

    def close(self) -> None:
        """End the line of an interactive bar."""
        if self.open_line:
            self._write("")
            self.open_line = False

    def _write(self, text: str, end: str = "\n") -> None:
        if hasattr(self.stream, "style_func"):  # Django's OutputWrapper adds its own ending
            self.stream.write(text, ending=end)
        else:
            self.stream.write(text + end)
        self.stream.flush()


def render(phase: str, done: int, total: int) -> str:
    """Return one line of the bar: the phase, the bar itself and the counts."""
    label = PHASES.get(phase, phase)
    if total <= 0:
        return f"{label:<18} [{'#' * WIDTH}] done"
    filled = min(WIDTH, done * WIDTH // total)
    percent = min(100, done * 100 // total)
    return f"{label:<18} [{'#' * filled}{'.' * (WIDTH - filled)}] {percent:3d}% {done}/{total}"

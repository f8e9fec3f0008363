"""Which of Debian's Chromium executables drives a browser here (browsers cannot be downloaded).

Headless, its headless shell (package chromium-headless-shell): the same Blink without the
browser's window and services, what Playwright itself runs headless, for a third less CPU.
Shown on a screen, or where the shell is not installed, the whole browser (package chromium).
"""

import os

HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"
BROWSER = "/usr/bin/chromium"


def chromium_executable(*, headless: bool = True) -> str:
    """Return the path of the Chromium to launch."""
    if headless and os.path.exists(HEADLESS_SHELL):
        return HEADLESS_SHELL
    return BROWSER

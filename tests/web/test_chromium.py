"""The browser tests and `manage.py screenshots` launch Debian's headless shell when it is there."""

from pathlib import Path

from memadmin.web.chromium import BROWSER, HEADLESS_SHELL, chromium_executable


def test_headless_runs_take_the_headless_shell_when_it_is_installed():
    expected = HEADLESS_SHELL if Path(HEADLESS_SHELL).exists() else BROWSER
    assert chromium_executable() == expected


def test_a_browser_shown_on_a_screen_is_the_whole_browser():
    assert chromium_executable(headless=False) == BROWSER

"""The stylesheet's two dark palettes (the system's, and the one chosen) are one palette."""

import re
from pathlib import Path

from django.contrib.staticfiles import finders

STYLESHEET = Path(finders.find("memadmin/memadmin.css"))


def declarations(block: str) -> dict[str, str]:
    return dict(re.findall(r"(--[\w-]+):\s*([^;]+);", block))


def test_the_chosen_dark_theme_is_the_systems_dark_theme():
    """Every colour of `:root[data-theme="dark"]` is the one the system's dark mode sets."""
    css = STYLESHEET.read_text()
    system = re.search(
        r'@media \(prefers-color-scheme: dark\) \{\s*:root:not\(\[data-theme="light"\]\) \{([^}]*)\}',
        css,
    )
    chosen = re.search(r':root\[data-theme="dark"\] \{([^}]*--ink[^}]*)\}', css)
    assert system and chosen
    assert declarations(system[1]) == declarations(chosen[1])
    assert len(declarations(chosen[1])) >= 25


def test_no_rule_of_the_system_dark_mode_overrides_a_light_choice():
    """Each rule under prefers-color-scheme: dark starts with :root:not([data-theme="light"])."""
    css = STYLESHEET.read_text()
    for media in re.finditer(r"@media \(prefers-color-scheme: dark\) \{(.*?)\n\}", css, re.S):
        selectors = re.findall(r"^\s*([^{}\n]+?)\s*\{", media[1], re.M)
        assert selectors
        for selector in selectors:
            assert selector.startswith(':root:not([data-theme="light"])'), selector

"""Fixtures of the taxonomy tests: a packs directory of one's own, and pack variants in it."""

import shutil
from pathlib import Path

import pytest
from django.conf import settings as django_settings

PACKS = Path(django_settings.BASE_DIR) / "packs"


@pytest.fixture
def packs_dir(tmp_path, settings):
    """A copy of packs/ that the test may add variants to; settings.PACKS_DIR points at it."""
    directory = tmp_path / "packs"
    shutil.copytree(PACKS, directory)
    settings.PACKS_DIR = directory
    return directory


@pytest.fixture
def ops_variant(packs_dir):
    """Return a function writing ops-six.toml anew with text replacements applied in order."""
    original = (PACKS / "ops-six.toml").read_text()

    def write(*replacements: tuple[str, str], version: str = "1.1.0") -> Path:
        text = original.replace('version = "1.0.0"', f'version = "{version}"', 1)
        for old, new in replacements:
            assert old in text, f"{old!r} is not in ops-six.toml"
            text = text.replace(old, new)
        path = packs_dir / "ops-six.toml"
        path.write_text(text)
        return path

    return write

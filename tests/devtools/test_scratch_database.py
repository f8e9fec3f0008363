"""The measuring commands' inner runs write only to the scratch database their outer run made."""

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


@pytest.mark.parametrize(
    ("command", "inside_env"),
    [("benchmark", "MEMADMIN_BENCHMARK_DIR"), ("curation_timing", "MEMADMIN_CURATION_TIMING_DIR")],
)
def test_an_inner_run_refuses_any_other_database(monkeypatch, tmp_path, command, inside_env):
    """Without the folder, or with a folder the database is not in, `--inside` is refused."""
    monkeypatch.delenv(inside_env, raising=False)
    with pytest.raises(CommandError, match=f"temporary database `manage.py {command}` makes"):
        call_command(command, "--inside")
    monkeypatch.setenv(inside_env, str(tmp_path))
    with pytest.raises(CommandError, match="only in the temporary database"):
        call_command(command, "--inside")

"""Naming a project from what the store says of it (pure Python)."""

from memadmin.core.project_names import folder_name, name_from_members, short_identity


def test_short_identity_cuts_the_hash_to_twelve_characters():
    """A long identity is shortened after its kind; a short one is kept whole."""
    assert short_identity("git:0a1b2c3d4e5f60718293a4b5c6d7e8f901234567") == "git:0a1b2c3d4e5f"
    assert short_identity("dir:9b1e4c7a2f") == "dir:9b1e4c7a2f"


def test_folder_name_is_the_last_folder_of_a_path():
    """POSIX and Windows paths, trailing separators and blanks."""
    assert folder_name("/home/ana/src/billing/") == "billing"
    assert folder_name(r"C:\Users\ana\checkout") == "checkout"
    assert folder_name("  ") == ""
    assert folder_name(None) == ""
    assert folder_name("/") == ""


def test_a_display_name_wins_over_any_path():
    """The first display name of any member wins; a path counts only when none has a name."""
    assert name_from_members([(None, "/src/a"), ("Billing", "/src/b")]) == "Billing"
    assert name_from_members([("", "/src/api/"), (None, "/src/web")]) == "api"
    assert name_from_members([(" ", None)]) == ""
    assert name_from_members([]) == ""

"""The mutation command's own parts: what it selects, how it rewrites, how it reads a diff."""

from pathlib import Path

import pytest

from memadmin.devtools.mutation import report, targets
from memadmin.devtools.mutation.undecorate import undecorate_source

ROOT = Path(__file__).resolve().parents[2]

DECORATED = """
import functools

def shout(function):
    @functools.wraps(function)
    def wrapper(*args):
        return function(*args).upper()
    return wrapper

@shout
@functools.lru_cache(maxsize=2)
def greet(name):
    return f"hello {name}"

class Box:
    def __init__(self, size):
        self.size = size

    @property
    def area(self):
        return self.size * self.size

    @staticmethod
    def unit():
        return Box(1)
"""


def test_undecorated_source_behaves_as_the_decorated_one():
    """Decorators moved to assignments give the same objects: order, arguments, properties."""
    rewritten = undecorate_source(DECORATED)
    assert "@shout" not in rewritten and "@property" not in rewritten
    assert "@staticmethod" in rewritten
    for source in (DECORATED, rewritten):
        names: dict = {}
        exec(compile(source, "<test>", "exec"), names)
        assert names["greet"]("ann") == "HELLO ANN"
        assert names["Box"](3).area == 9
        assert names["Box"].unit().area == 1


def test_a_property_setter_keeps_its_decorator():
    """A setter cannot be applied by assignment (the name is the function by then): it stays."""
    source = "class A:\n    @property\n    def x(self): return 1\n    @x.setter\n    def x(self, v): pass\n"
    assert "@x.setter" in undecorate_source(source)


def test_named_sets_and_modules_select_files_and_their_tests():
    """'core' selects the core modules and tests/core; a dotted module its file and app tests."""
    core = targets.select(["core"], ROOT)
    assert "memadmin/core/hashing.py" in core.patterns
    assert core.tests == ("tests/core",)
    assert core.target == 95.0
    one = targets.select(["memadmin.composites.services"], ROOT)
    assert one.patterns == ("memadmin/composites/services.py",)
    assert one.tests == ("tests/composites",)
    assert one.target is None
    assert targets.select(["memadmin/core/ledger"], ROOT).patterns == ("memadmin/core/ledger/*",)


def test_an_unknown_module_is_refused_by_name():
    """A name that is no module, file, folder or set is refused, naming it."""
    with pytest.raises(ValueError, match=r"memadmin\.core\.nothing, nowhere/"):
        targets.select(["core", "memadmin.core.nothing", "nowhere/"], ROOT)


def test_changed_lines_of_a_diff_leave_out_the_file_names_and_context():
    """Only the removed and added lines count, stripped, not the --- and +++ headers."""
    diff = "--- a.py\n+++ a.py\n@@ -1,2 +1,2 @@\n def f():\n-    return a > b\n+    return a >= b"
    assert report.changed_lines(diff) == ("return a > b", "return a >= b")


def test_every_listed_equivalent_names_its_module_lines_and_reason():
    """Each equivalent mutant in the list says where it is, what it changes and why it is one."""
    equivalents = report.load_equivalents()
    assert equivalents
    for equivalent in equivalents:
        assert equivalent.module.startswith("memadmin.")
        assert equivalent.removed.strip() and equivalent.added.strip()
        assert equivalent.removed != equivalent.added
        assert len(equivalent.reason) > 20

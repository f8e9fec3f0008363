"""Build hook: the wheel carries templates/, static/ and packs/ inside the package.

The repository keeps them at its top level; `build_py` copies them to `memadmin/bundled/` in
the build, where `memadmin/core/locations.py` finds them once installed. An editable install
(`pip install -e .`, as .ci/setup makes) runs from the checkout and needs no copy.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

BUNDLED = ("templates", "static", "packs")


class BuildWithBundledFiles(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        root = Path(__file__).resolve().parent
        target = Path(self.build_lib) / "memadmin" / "bundled"
        for name in BUNDLED:
            shutil.copytree(root / name, target / name, dirs_exist_ok=True)


setup(cmdclass={"build_py": BuildWithBundledFiles})

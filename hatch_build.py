"""Bestiary's build hook: compiles the C twins of a few hot Python paths (docs/architecture.md, *Compiled paths*).

Where a C compiler is found, `pip install` builds them (in place for an editable install, into the wheel
otherwise). Where none is, or where BESTIARY_PURE_PYTHON is set at install, the package is pure Python and runs
the Python twins, which give identical results, more slowly. BESTIARY_REQUIRE_COMPILED=1 (CI sets it) makes a
failed compilation a failed install instead of a warning.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

# module -> its C source, relative to the project root
EXTENSIONS = {
    "bestiary.core._speedups": "src/bestiary/core/_speedups.c",
    "bestiary.games.crits._turn": "src/bestiary/games/crits/_turn.c",
    "bestiary.games.crits._tensor": "src/bestiary/games/crits/_tensor.c",
    "bestiary.games.cube._batch": "src/bestiary/games/cube/_batch.c",
}


def compile_extensions(root: str, build_lib: str | None, build_temp: str) -> dict[str, str]:
    """Compile every extension with the interpreter's own compiler settings (setuptools' build_ext); into the
    source tree when `build_lib` is None. Returns each module's compiled file."""
    from setuptools import Distribution, Extension

    distribution = Distribution({"name": "bestiary", "package_dir": {"": "src"},
                                 "ext_modules": [Extension(name, [source]) for name, source in EXTENSIONS.items()]})
    command: Any = distribution.get_command_obj("build_ext")
    command.inplace = build_lib is None
    if build_lib is not None:
        command.build_lib = build_lib
    command.build_temp = build_temp
    command.force = True  # an editable install rebuilds what an earlier one left
    here = os.getcwd()
    os.chdir(root)
    try:
        command.ensure_finalized()
        command.run()
        return {name: os.path.join(root, command.get_ext_fullpath(name)) for name in EXTENSIONS}
    finally:
        os.chdir(here)


class CompiledPaths(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        self.scratch = None
        if self.target_name != "wheel" or os.environ.get("BESTIARY_PURE_PYTHON"):
            return
        editable = version == "editable"
        self.scratch = tempfile.mkdtemp(prefix="bestiary-build-")
        try:
            built = compile_extensions(self.root, None if editable else os.path.join(self.scratch, "lib"),
                                       os.path.join(self.scratch, "temp"))
        except Exception as error:  # no compiler, no headers: the Python twins serve
            if os.environ.get("BESTIARY_REQUIRE_COMPILED"):
                raise
            self.app.display_warning(f"bestiary: the compiled paths were not built ({error}); the pure-Python "
                                     "twins run instead, with identical results, more slowly")
            return
        if not editable:
            build_data["pure_python"] = False
            build_data["infer_tag"] = True
            for name, path in built.items():
                build_data["force_include"][path] = os.path.join(*name.split(".")[:-1], os.path.basename(path))

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self.scratch is not None:
            shutil.rmtree(self.scratch, ignore_errors=True)

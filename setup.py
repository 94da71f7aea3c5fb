"""Builds the extension blockbloom._blockbloom with CMake for pip (pyproject.toml
has the metadata and the install command). The CMake build goes to
build/pip-<python version> (kept between installs, so a second install only
relinks), with the tests, benchmarks, examples and install rules off."""

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


def version():
    """The release, from include/blockbloom/version.h (its one source, which
    CMakeLists.txt reads the same way)."""
    with open(os.path.join(ROOT, "include", "blockbloom", "version.h")) as f:
        text = f.read()
    return ".".join(
        re.search(r"^inline constexpr int kVersion%s = ([0-9]+);$" % part,
                  text, re.MULTILINE).group(1)
        for part in ("Major", "Minor", "Patch"))


class CMakeBuild(build_ext):
    """Configures and builds the CMake target blockbloom_python, then copies
    the module where setuptools packs it."""

    def build_extension(self, ext):
        build = os.path.join(ROOT, "build", "pip-%s" %
                             sysconfig.get_config_var("py_version_nodot"))
        configure = [
            "cmake", "-S", ROOT, "-B", build,
            "-DCMAKE_BUILD_TYPE=Release",
            "-DBLOCKBLOOM_PYTHON=ON",
            "-DBLOCKBLOOM_BUILD_TESTS=OFF",
            "-DBLOCKBLOOM_BUILD_BENCH=OFF",
            "-DBLOCKBLOOM_BUILD_EXAMPLES=OFF",
            "-DBLOCKBLOOM_INSTALL=OFF",
            "-DPython3_EXECUTABLE=" + sys.executable,
        ]
        # More CMake options from the environment, as scikit-build's
        # CMAKE_ARGS (scripts/test: -DBLOCKBLOOM_WERROR=ON).
        configure += shlex.split(os.environ.get("CMAKE_ARGS", ""))
        if shutil.which("ninja"):
            configure += ["-G", "Ninja"]
        subprocess.run(configure, check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        subprocess.run(["cmake", "--build", build, "--target",
                        "blockbloom_python", "-j", jobs], check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = os.path.join(build, "python", "blockbloom",
                             "_blockbloom" + suffix)
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built, target)


setup(
    version=version(),
    ext_modules=[Extension("blockbloom._blockbloom", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
)

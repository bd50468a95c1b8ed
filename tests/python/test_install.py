"""An installed ksearch (cmake --install) serves a copy of the package that lives outside the
checkout: the executable is found on PATH, nothing is configured by hand; without it the error
says what to do."""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "python" / "metalsim_mlx"

SCRIPT = """
import mlx.core as mx, metalsim_mlx
kernel = metalsim_mlx.metal_kernel(name="add1", input_names=["a"], output_names=["out"],
                                   source="uint i = thread_position_in_grid.x; out[i] = a[i] + 1;")
(out,) = kernel(inputs=[mx.arange(40, dtype=mx.float32)], output_shapes=[(40,)], output_dtypes=[mx.float32],
                grid=(40, 1, 1), threadgroup=(32, 1, 1))
assert out.tolist() == list(range(1, 41)), out
print(metalsim_mlx.find_tool())
"""


@pytest.fixture
def installed(tmp_path):
    """(prefix with bin/ksearch-metalsim, site dir holding a copy of the package)."""
    build_dir, cmake = os.environ.get("KSEARCH_BUILD_DIR"), os.environ.get("CMAKE_COMMAND")
    if not build_dir or not cmake:
        pytest.skip("KSEARCH_BUILD_DIR and CMAKE_COMMAND are set by CTest (tests/python/CMakeLists.txt)")
    prefix = tmp_path / "prefix"
    subprocess.run([cmake, "--install", build_dir, "--prefix", str(prefix), "--component", "metalsim"], check=True)
    site = tmp_path / "site"
    shutil.copytree(PACKAGE, site / "metalsim_mlx", ignore=shutil.ignore_patterns("__pycache__"))
    return prefix, site


def run_script(site, path):
    env = {k: v for k, v in os.environ.items() if k not in ("KSEARCH_METALSIM", "PYTHONPATH")}
    env.update(PYTHONPATH=str(site), PATH=path)
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True)


def test_installed_executable_is_found_on_path(installed):
    prefix, site = installed
    done = run_script(site, f"{prefix / 'bin'}:{os.environ['PATH']}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(prefix / "bin" / "ksearch-metalsim")


def test_without_the_executable_the_error_says_how_to_get_it(installed):
    _, site = installed
    done = run_script(site, "/usr/bin:/bin")
    assert done.returncode != 0
    assert "MetalsimSetupError" in done.stderr
    assert "ksearch-metalsim executable, which was not found" in done.stderr
    assert "cmake --install build" in done.stderr

"""Runs one pytest file for CTest; exits 77 (CTest: skipped) when a module the file needs is not
importable, or when pytest skipped every test, so a missing dependency never reads as a pass.

    python3 run_pytest.py TEST_FILE [REQUIRED_MODULE ...]
"""
import importlib
import os
import sys

SKIPPED = 77


def main():
    test_file, required = sys.argv[1], ["pytest", "numpy", "mlx.core"] + sys.argv[2:]
    for module in required:
        try:
            importlib.import_module(module)
        except ImportError as e:
            print(f"SKIPPED: {module} is not importable ({e}); scripts/install-deps.sh installs it")
            return SKIPPED
    import pytest

    # Plugins installed in this Python (e.g. anyio's, pulled in by mlx-lm) are not needed and
    # would make the run depend on what else is installed.
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    class Outcomes:
        passed = skipped = 0

        def pytest_runtest_logreport(self, report):
            if report.when == "call" and report.passed:
                Outcomes.passed += 1
            if report.skipped:
                Outcomes.skipped += 1

    status = pytest.main(["-q", "-p", "no:cacheprovider", test_file], plugins=[Outcomes()])
    if status == 0 and Outcomes.passed == 0 and Outcomes.skipped > 0:
        print("SKIPPED: every test was skipped")
        return SKIPPED
    return int(status)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""check_layers.py on a small tree: it passes a downward include and fails an upward one, a
private backend header reached from outside, and a module missing from layers.toml; and the same for
the build's module links."""
import json
import pathlib
import subprocess
import sys
import tempfile

CHECK = pathlib.Path(__file__).with_name("check_layers.py")
LAYERS = """
[allowed]
core = []
backends = ["core"]
cli = ["backends", "core"]
[private]
folders = ["backends/*"]
"""


def run(files: dict[str, str], links: dict | None = None) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as root:
        src = pathlib.Path(root) / "src"
        for name in ("core", "backends/cpu", "cli"):
            (src / name).mkdir(parents=True, exist_ok=True)
        (src / "layers.toml").write_text(LAYERS)
        for name, text in files.items():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_text(text)
        command = [sys.executable, CHECK, root]
        if links is not None:
            (pathlib.Path(root) / "module_links.json").write_text(json.dumps(links))
            command.append(str(pathlib.Path(root) / "module_links.json"))
        return subprocess.run(command, capture_output=True, text=True)


def expect(files: dict[str, str], ok: bool, needle: str = "", links: dict | None = None) -> None:
    result = run(files, links)
    assert (result.returncode == 0) == ok, (files, result.stdout)
    assert needle in result.stdout, (needle, result.stdout)


expect({"cli/main.cpp": '#include "backends/backend.hpp"\n#include "core/x.hpp"\n'}, True, "graph holds")
expect({"core/x.cpp": '#include "cli/command.hpp"\n'}, False, "src/core/x.cpp:1")
expect({"core/new.cpp": '#include "backends/backend.hpp"\n'}, False, "may not depend on 'backends'")
expect({"cli/main.cpp": '#include "backends/cpu/tools.hpp"\n'}, False, "private")
expect({"backends/cpu/a.cpp": '#include "backends/cpu/tools.hpp"\n'}, True)
expect({"backends/new/a.cpp": "\n", "cli/main.cpp": '#include "backends/new/a.hpp"\n'}, False, "private")
expect({"store/s.cpp": "\n"}, False, "missing from src/layers.toml")
expect({"backends/cpu/sub/a.hpp": '#include "../tools.hpp"\n'}, True, "graph holds")
expect({"core/sub/a.hpp": '#include "../../backends/b.hpp"\n'}, False, "may not depend on 'backends'")
expect({"cli/a.cpp": '#include "../backends/cpu/tools.hpp"\n'}, False, "private")
expect({}, True, "graph holds", {"cli_exe": {"module": "cli", "links": ["backends", "core"]},
                                  "backend_lib": {"module": "backends", "links": ["backends", "core"]}})
expect({}, False, "links module 'cli'", {"backend_lib": {"module": "backends", "links": ["cli"]}})
expect({}, False, "links module 'backends'", {"core_lib": {"module": "core", "links": ["backends"]}})
expect({}, False, "missing from src/layers.toml", {"store_lib": {"module": "store", "links": []}})
print("check_layers.py behaves")

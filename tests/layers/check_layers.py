#!/usr/bin/env python3
"""Fails when a file under src/ includes a header its module may not depend on (src/layers.toml),
or when a module's library links a module it may not depend on.

    check_layers.py SOURCE_DIR [MODULE_LINKS_JSON]
MODULE_LINKS_JSON is <build>/module_links.json, written by cmake/ModuleLayers.cmake: each target
under src/ with its module and the modules of the ksearch targets it links. The build enforces the
graph coarsely (a target sees the headers of what it links, transitively through PUBLIC links);
this check holds the finer rules: each file's own #includes, private folders.
Prints every offence and exits 1; exits 0 when the graph holds.
"""
import json
import pathlib
import re
import sys
import tomllib

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = {".cpp", ".hpp", ".h", ".cu", ".cuh", ".in"}


def check_links(targets: dict, allowed: dict) -> list[str]:
    """A target may link its own module and the modules layers.toml allows it."""
    errors = []
    for target, entry in sorted(targets.items()):
        module = entry["module"]
        if module not in allowed:
            errors.append(f"target {target}: module '{module}' is missing from src/layers.toml [allowed]")
            continue
        for linked in entry["links"]:
            if linked != module and linked not in allowed[module]:
                errors.append(f"target {target} (module '{module}') links module '{linked}': not allowed by src/layers.toml")
    return errors


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    src = root / "src"
    layers = tomllib.loads((src / "layers.toml").read_text())
    allowed = {module: set(deps) for module, deps in layers["allowed"].items()}
    private = []  # "a/*" stands for every subfolder of a
    for folder in layers.get("private", {}).get("folders", []):
        if folder.endswith("/*"):
            parent = src / folder[:-2]
            private += [f"{folder[:-2]}/{d.name}/" for d in sorted(parent.iterdir()) if d.is_dir()] if parent.is_dir() else []
        else:
            private.append(folder.rstrip("/") + "/")
    errors = []
    for path in sorted(p for p in src.rglob("*") if p.suffix in SOURCES and p.is_file()):
        relative = path.relative_to(src).as_posix()
        module = relative.split("/", 1)[0]
        if module not in allowed:
            errors.append(f"src/{relative}: module '{module}' is missing from src/layers.toml [allowed]")
            continue
        for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            match = INCLUDE.match(line)
            if not match or "/" not in match.group(1):
                continue  # a file beside this one
            header = match.group(1)
            if header.startswith("."):  # relative to this file: name it from src/, or skip if outside
                resolved = (path.parent / header).resolve()
                if not resolved.is_relative_to(src.resolve()):
                    continue
                header = resolved.relative_to(src.resolve()).as_posix()
            target = header.split("/", 1)[0]
            where = f"src/{relative}:{number}: #include \"{header}\""
            if target == "ksearch" or not (src / target).is_dir():
                continue  # include/ksearch/ and system or generated headers
            for folder in private:
                if header.startswith(folder) and not relative.startswith(folder):
                    errors.append(f"{where}: {folder} is private to its folder")
            if target == module or target in allowed[module]:
                continue
            errors.append(f"{where}: module '{module}' may not depend on '{target}' (src/layers.toml)")
    if len(sys.argv) > 2:
        errors += check_links(json.loads(pathlib.Path(sys.argv[2]).read_text()), allowed)
    for error in errors:
        print(error)
    if errors:
        print(f"{len(errors)} include(s) or link(s) break the module graph in src/layers.toml")
        return 1
    print("module graph holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())

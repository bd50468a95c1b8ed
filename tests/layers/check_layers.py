#!/usr/bin/env python3
"""Fails when a file under src/ includes a header its module may not depend on (src/layers.toml).

    check_layers.py SOURCE_DIR
Prints every offending #include as file:line and exits 1; exits 0 when the graph holds.
"""
import pathlib
import re
import sys
import tomllib

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
SOURCES = {".cpp", ".hpp", ".h", ".cu", ".cuh", ".in"}


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    src = root / "src"
    layers = tomllib.loads((src / "layers.toml").read_text())
    allowed = {module: set(deps) for module, deps in layers["allowed"].items()}
    debt = {file: set(deps) for file, deps in layers.get("debt", {}).items()}
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
            target = header.split("/", 1)[0]
            where = f"src/{relative}:{number}: #include \"{header}\""
            if target == "ksearch" or not (src / target).is_dir():
                continue  # include/ksearch/ and system or generated headers
            for folder in private:
                if header.startswith(folder) and not relative.startswith(folder) and folder[:-1] not in debt.get(relative, set()):
                    errors.append(f"{where}: {folder} is private to its folder")
            if target == module or target in allowed[module] or target in debt.get(relative, set()):
                continue
            errors.append(f"{where}: module '{module}' may not depend on '{target}' (src/layers.toml)")
    for error in errors:
        print(error)
    if errors:
        print(f"{len(errors)} include(s) break the module graph in src/layers.toml")
        return 1
    print("module graph holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())

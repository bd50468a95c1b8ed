#!/usr/bin/env bash
# An installed ksearch works with the source and build trees out of reach: installs the build into a
# temporary prefix, moves the prefix (so nothing can rely on the install path), hides the source and
# build trees behind empty mounts where user namespaces allow it, and runs `ksearch paths`,
# `ksearch tasks` and a timed `ksearch eval` of the cpu softmax seed from the moved prefix.
#   installed_ksearch.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
BUILD=$1 SOURCE=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cmake --install "$BUILD" --prefix "$WORK/prefix" > "$WORK/install.log"
mv "$WORK/prefix" "$WORK/moved"
P=$WORK/moved
for f in bin/ksearch libexec/ksearch/ksearch-runner-cpu share/ksearch/tasks/softmax/task.toml \
         share/ksearch/profiles/cpu.rules.toml share/ksearch/prompts/system.md share/ksearch/include/ksearch/reference.h \
         share/ksearch/config/prices.toml; do
  [ -e "$P/$f" ] || { echo "FAIL: the install lacks $f" >&2; exit 1; }
done
# Runners link only what they need: no HTTP client in a process that runs candidates.
for runner in "$P"/libexec/ksearch/*; do
  readelf -d "$runner" > "$WORK/dynamic.txt"
  if grep -q 'libcurl' "$WORK/dynamic.txt"; then echo "FAIL: $runner links libcurl" >&2; exit 1; fi
done
cp "$SOURCE/tasks/softmax/seeds/cpu.cpp" "$WORK/seed.cpp"
cat > "$WORK/check.sh" <<CHECK
set -euo pipefail
export KSEARCH_CACHE_DIR="$WORK/cache"
unset KSEARCH_DATA_DIR KSEARCH_TASKS_DIR KSEARCH_PROMPTS_DIR KSEARCH_PRICES_FILE
cd "$WORK"
"$P/bin/ksearch" paths
"$P/bin/ksearch" paths --json > paths.json
python3 - "$P" "$SOURCE" "$BUILD" <<'PY'
import json, sys
prefix, source, build = sys.argv[1:]
paths = json.load(open("paths.json"))
for name in ("data", "tasks", "profiles", "prompts", "include", "prices", "runners"):
    path = paths[name]["path"]
    assert path.startswith(prefix), f"{name} resolves to {path}, outside the installed prefix {prefix}"
    assert not path.startswith((source + "/", build + "/")), f"{name} resolves into the source/build tree: {path}"
assert paths["data"]["origin"].startswith("installed"), paths["data"]
assert paths["runners"]["origin"].startswith("installed"), paths["runners"]
PY
# Through a file: grep -q stops reading at the first match, and the writer's SIGPIPE would fail the pipe.
"$P/bin/ksearch" tasks > tasks.txt
grep -q '^softmax ' tasks.txt
"$P/bin/ksearch" eval --task softmax --backend cpu --workloads visible seed.cpp --json > eval.json
python3 -c 'import json; r = json.load(open("eval.json")); assert r["status"] == "passed", r["status"]'
CHECK
if unshare --user --map-root-user --mount true 2>/dev/null; then
  echo "hiding $SOURCE and $BUILD"
  unshare --user --map-root-user --mount bash -c \
    "mount -t tmpfs none '$SOURCE' && { [ -d '$BUILD' ] && mount -t tmpfs none '$BUILD' || true; } && bash '$WORK/check.sh'"
else
  echo "no user namespaces here: the source tree stays visible; the paths check still proves it is unused"
  bash "$WORK/check.sh"
fi
echo "installed ksearch works from $P"

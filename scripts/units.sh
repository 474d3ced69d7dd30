#!/usr/bin/env bash
# Run some unit tests under ansible-test units in a private copy of the checkout, so that several
# runs at once never share .build/sanity: scripts/units.sh tests/unit/plugins/module_utils/_plan
# (a folder needs its trailing slash; no argument: every unit test, as `make unit` does).
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
# Under .build, so that tests find ../shared by walking up from their own file, as under `make unit`.
mkdir -p "$repo/.build"
tmp="$(mktemp -d "$repo/.build/units.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
tree="$tmp/ansible_collections/gpusmith/numa_gate"
mkdir -p "$tree"
cd "$repo"
git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - | tar -xf - -C "$tree"
cd "$tree"
git init -q && git add -A
NUMA_GATE_SHARED="${NUMA_GATE_SHARED:-$(cd "$repo/.." && pwd)/shared}" \
  "$repo/.venv/bin/ansible-test" units --local --python 3.11 --color no "$@"

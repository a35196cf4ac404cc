#!/usr/bin/env bash
# Fails when any file of the tree (text or binary) names a path outside the clone: the sibling directory
# next to the clone that once held shared data, or a build machine's work or home directory. Everything the build and
# the tests read lives in the repository (DEVELOPERS.md). ctest runs it as `no_outside_paths`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
# The patterns are written so that this script does not match itself.
PATTERN='[.][.]/shared|/wor[k]/|/roo[t]/|/hom[e]/'
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files)
else
  mapfile -t files < <(find . -path ./build -prune -o -path ./.git -prune -o -type f -print | sed 's|^\./||')
fi
hits="$(printf '%s\0' "${files[@]}" | xargs -0 grep -a -n -E -o "$PATTERN" 2>/dev/null | cut -c1-200 || true)"
if [ -n "$hits" ]; then
  echo "$hits"
  echo "no_outside_paths: $(echo "$hits" | wc -l) references to a path outside the clone (bring the data into the repository, name documents by their title)" >&2
  exit 1
fi
echo "no_outside_paths: ${#files[@]} files, none names a path outside the clone"

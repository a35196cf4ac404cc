#!/usr/bin/env bash
# Checks that every C++ source of the tree is formatted as .clang-format says (generated *_gen.* files are
# left as their generators write them). `--fix` rewrites them in place. ctest runs it as `format_check`.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CLANG_FORMAT="${CLANG_FORMAT:-$(command -v clang-format-14 || command -v clang-format || true)}"
if [ -z "$CLANG_FORMAT" ]; then
  echo "check-format: clang-format not found (Debian package clang-format)" >&2
  exit 1
fi
cd "$ROOT"
mapfile -t files < <(find src include tools tests python examples bench \
  \( -name '*.cpp' -o -name '*.h' -o -name '*.inc' \) -not -name '*_gen.*' -not -path '*/node_modules/*' | sort)
if [ "${1:-}" = "--fix" ]; then
  "$CLANG_FORMAT" -i "${files[@]}"
  exit 0
fi
if ! "$CLANG_FORMAT" --dry-run -Werror "${files[@]}" 2>/tmp/check-format.$$; then
  grep -o '^[^:]*:[0-9]*' /tmp/check-format.$$ | sort -u | head -20
  echo "check-format: $(grep -c 'error:' /tmp/check-format.$$) places differ from .clang-format; run scripts/check-format.sh --fix" >&2
  rm -f /tmp/check-format.$$
  exit 1
fi
rm -f /tmp/check-format.$$
echo "check-format: ${#files[@]} files formatted"

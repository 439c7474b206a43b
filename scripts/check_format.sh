#!/usr/bin/env bash
# Check that every tracked C++ file follows .clang-format (Google base, 100 columns).
# Lists the offending files and exits non-zero when there are any; fix them with
#   clang-format -i <file>...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "error: $CLANG_FORMAT not found (apt-get install clang-format)" >&2
  exit 1
fi

# Files git knows or would add (tracked + untracked, not ignored); every file when not a git
# checkout.
dirs=(stage*/ python/src/ tools/ tests/ tutorials/ bench/)
patterns=()
for d in stage* python/src tools tests tutorials bench; do
  for ext in h cc cpp; do
    patterns+=(":(glob)$d/**/*.$ext")
  done
done
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- "${patterns[@]}" | sort -u)
else
  mapfile -t files < <(find "${dirs[@]}" \
    -type f \( -name '*.h' -o -name '*.cc' -o -name '*.cpp' \) 2>/dev/null | sort)
fi

offenders=()
for f in "${files[@]}"; do
  [[ -f $f ]] || continue  # deleted in the working tree
  if ! "$CLANG_FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1; then
    offenders+=("$f")
  fi
done

if ((${#offenders[@]} > 0)); then
  echo "clang-format: ${#offenders[@]} of ${#files[@]} files need formatting:"
  printf '  %s\n' "${offenders[@]}"
  echo "fix with: clang-format -i ${offenders[*]}"
  exit 1
fi
echo "clang-format: ${#files[@]} files OK"

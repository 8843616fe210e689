#!/usr/bin/env bash
# Fails if a tracked file cites the project workspace instead of the repository: the old design file
# or the specification folders beside the checkout, which a person who clones the repository never
# has. Cite docs/protocol.md §N (or a decision D1..) and docs/conformance.md instead.
#
#   scripts/check-references.sh [repo dir]        (CTest: lint.references)
#
# Exempt: schemas/*.json, published documents whose bytes are immutable per $id (their SHA-256 is in
# schemas/index.json and in devices' offline bundles), and this script.
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
git rev-parse --git-dir >/dev/null 2>&1 || { echo "check-references: not a git checkout, skipped"; exit 77; }
design='DESIGN'  # spelled in two parts so this file does not match itself
pattern="\.\./shared|shared/(seeds|notes)|${design}( §|\.md| section| D[0-9])"
hits=$(git grep -nE "$pattern" -- . ':!schemas/*.json' ':!scripts/check-references.sh' || true)
if [ -n "$hits" ]; then
  echo "$hits"
  echo "check-references: $(wc -l <<<"$hits") line(s) cite files outside the repository; point them at docs/protocol.md §N" >&2
  exit 1
fi
echo "check-references: no tracked file cites outside the repository"

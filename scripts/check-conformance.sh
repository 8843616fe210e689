#!/usr/bin/env bash
# Keeps docs/conformance.md honest: every requirement row has a status (done, deviates, n/a, gap),
# and every test it cites exists: `Suite.Name` gtest cases in tests/unit/<folder>/, `name.sh` scripts in
# tests/integration/, `name.mjs` clients in tests/node/, `name_test.cc` files in tests/unit/<folder>/.
#
#   scripts/check-conformance.sh [repo dir]        (CTest: lint.conformance)
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
doc=docs/conformance.md
problems=0
complain() { echo "check-conformance: $*" >&2; problems=$((problems + 1)); }

# Requirement rows are "| R1-3 | … | status |" (R1, R4, R5, R9 and D5 rows).
while IFS= read -r row; do
  id=$(cut -d'|' -f2 <<<"$row" | tr -d ' ')
  status=$(awk -F'|' '{print $(NF-1)}' <<<"$row" | sed 's/^ *//')
  [[ "$status" =~ ^(done|deviates|n/a|gap) ]] || complain "row $id has no status (done/deviates/n/a/gap): [$status]"
done < <(grep -E '^\| (R[1459]|D5)-[0-9]+ \|' "$doc")

cases=$(grep -ohE '^TEST(_F|_P)?\([A-Za-z0-9_]+, *[A-Za-z0-9_]+' tests/unit/*/*.cc tests/unit/common/*/*.cc | sed -E 's/^TEST(_F|_P)?\(//; s/, */./' | sort -u)
for t in $(grep -oE '`[A-Z][A-Za-z0-9]+\.[A-Z][A-Za-z0-9_]+`' "$doc" | tr -d '`' | sort -u); do
  grep -qxF "$t" <<<"$cases" || complain "cites gtest case $t, which does not exist"
done
for f in $(grep -oE '`[a-z0-9_]+\.sh`' "$doc" | tr -d '`' | sort -u); do
  [ -f "tests/integration/$f" ] || complain "cites $f, not in tests/integration/"
done
for f in $(grep -oE '`[a-z0-9_]+\.mjs`' "$doc" | tr -d '`' | sort -u); do
  [ -f "tests/node/$f" ] || complain "cites $f, not in tests/node/"
done
for f in $(grep -oE '`[a-z0-9_]+_test\.cc`' "$doc" | tr -d '`' | sort -u); do
  { compgen -G "tests/unit/*/$f" || compgen -G "tests/unit/common/*/$f"; } >/dev/null || complain "cites $f, not in tests/unit/<folder>/ or tests/unit/common/<folder>/"
done
[ "$problems" -eq 0 ] || exit 1
echo "check-conformance: $(grep -cE '^\| (R[1459]|D5)-[0-9]+ \|' "$doc") rows, each with a status; every cited test exists"

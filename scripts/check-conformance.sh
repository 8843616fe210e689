#!/usr/bin/env bash
# Keeps docs/conformance.md honest. Fails when
#   - a requirement row has no status (done, deviates, n/a, gap), or two rows share an id;
#   - a "deviates" row names no decision D<n> of docs/protocol.md §1 that exists;
#   - a "done" or "deviates" row cites no test that CI runs (column "checked by");
#   - any cited test does not exist or does not run in CI:
#       `Suite.Name`  a gtest case in tests/unit/ (not DISABLED_, not skipped by a GTEST_SKIP at the
#                     top of its body); `Suite.*` any enabled case of that suite;
#       `name.sh`     a script some CTest test of the build dir runs, and not only tests labelled
#                     `local` (those run in `scripts/test.sh --all` only, not in CI);
#       `name.mjs`    a Node client in tests/node/ that such a CI-run script runs;
#       `name_test.cc` a file of tests/unit/ (compiled into unit_tests);
#     a test name shortened with "…" cannot be checked and is refused;
#   - the "Gaps" table at the end and the rows whose status is gap disagree.
# CI (scripts/test.sh without arguments) runs every CTest test except the arm64 virtual Pi
# (which runs the same virtual_pi.sh as the amd64 one) and the tests labelled `local`.
#
#   scripts/check-conformance.sh [repo dir] [build dir]   (CTest: lint.conformance, with its build dir)
# The build dir (default <repo>/build) must be configured: its CTest registrations say which
# scripts run, and under which labels.
set -euo pipefail
repo=$(cd "${1:-$(dirname "$0")/..}" && pwd)
build=${2:-$repo/build}
cd "$repo"
doc=docs/conformance.md
problems=0
complain() { echo "check-conformance: $*" >&2; problems=$((problems + 1)); }
bad() { complain "row $id $*"; }   # in ci_test: a problem with a test that row $id cites

[ -f "$build/CTestTestfile.cmake" ] || {
  echo "check-conformance: $build is not a configured build dir (cmake -S . -B build first)" >&2; exit 2; }

# Every CTest test with its labels and the scripts it runs: "<name> <local|ci> <script paths…>".
ctest_json=$(ctest --test-dir "$build" --show-only=json-v1)
registered=$(jq -r '.tests[]
  | [.name,
     (if ([.properties[]? | select(.name == "LABELS") | .value[]] | index("local")) then "local" else "ci" end),
     (.command // [] | map(select(test("\\.sh$"))) | join(" "))]
  | join(" ")' <<<"$ctest_json")
declare -A ci_script local_script enabled_case any_case enabled_suite unit_file ci_mjs decision
ci_paths=$(awk '$2 == "ci" { for (i = 3; i <= NF; i++) print $i }' <<<"$registered" | sort -u)
for f in $ci_paths; do ci_script[${f##*/}]=1; done
for f in $(awk '$2 == "local" { for (i = 3; i <= NF; i++) print $i }' <<<"$registered"); do local_script[${f##*/}]=1; done
# The Node clients the CI-run scripts run.
# shellcheck disable=SC2086
for f in $( [ -z "$ci_paths" ] || grep -ohE '[a-z0-9_]+\.mjs' $ci_paths | sort -u); do ci_mjs[$f]=1; done

# gtest cases, and those disabled or skipped unconditionally (a GTEST_SKIP at the top level of
# the body, i.e. indented by two spaces).
unit_files=$(find tests/unit -name '*_test.cc' | sort)
for f in $unit_files; do unit_file[${f##*/}]=1; done
# shellcheck disable=SC2086
while read -r name state; do
  any_case[$name]=1
  if [ "$state" = ok ] && [[ ! "$name" =~ (^|\.)DISABLED_ ]]; then enabled_case[$name]=1; enabled_suite[${name%%.*}]=1; fi
done < <(awk '
  function flush() { if (name != "") print name, (skipped ? "skipped" : "ok") }
  /^TEST(_F|_P)?\(/ { flush(); s = $0; sub(/^TEST(_F|_P)?\(/, "", s); split(s, p, /, */)
                      sub(/\).*/, "", p[2]); name = p[1] "." p[2]; skipped = 0; next }
  /^  GTEST_SKIP\(/ { skipped = 1 }
  /^}/ { flush(); name = "" }
  END { flush() }' $unit_files)

for d in $(awk '/^## 1\./ { on = 1; next } /^## / { on = 0 } on && /^\| D[0-9]+ \|/ { print $2 }' docs/protocol.md); do
  decision[$d]=1
done

# ci_test TOKEN (for row $id): 0 when TOKEN is a test that runs in CI; else complains, returns 1.
ci_test() {
  local t=$1
  case "$t" in
    *…*) bad "cites '$t': write the test's full name, a shortened one cannot be checked"; return 1 ;;
    *.sh)
      [ -z "${ci_script[$t]:-}" ] || return 0
      if [ -n "${local_script[$t]:-}" ]; then bad "cites $t, which only tests labelled local run (not CI)"
      elif compgen -G "tests/*/$t" >/dev/null; then bad "cites $t, which no CTest test runs"
      else bad "cites $t, which does not exist"; fi
      return 1 ;;
    *.mjs)
      [ -f "tests/node/$t" ] || { bad "cites $t, not in tests/node/"; return 1; }
      [ -n "${ci_mjs[$t]:-}" ] || { bad "cites $t, which no script that CI runs runs"; return 1; }
      return 0 ;;
    *_test.cc)
      [ -n "${unit_file[$t]:-}" ] || { bad "cites $t, not in tests/unit/"; return 1; }
      return 0 ;;
    *.\*)
      [ -n "${enabled_suite[${t%.\*}]:-}" ] || { bad "cites $t, a suite with no enabled case"; return 1; }
      return 0 ;;
    *)
      [ -z "${enabled_case[$t]:-}" ] || return 0
      if [ -n "${any_case[$t]:-}" ] || [ -n "${any_case[${t%%.*}.DISABLED_${t#*.}]:-}" ] || [ -n "${any_case[DISABLED_$t]:-}" ]; then
        bad "cites gtest case $t, which is disabled or skipped"
      else bad "cites gtest case $t, which does not exist"; fi
      return 1 ;;
  esac
}

# Requirement rows are "| R1-3 | … | checked by | status |" (R1, R4, R5, R9 and D5 rows). Cells
# are counted from the end: a requirement may quote RFC 004's `||`.
rows=$(grep -E '^\| (R[1459]|D5)-[0-9]+ \|' "$doc")
dups=$(cut -d'|' -f2 <<<"$rows" | tr -d ' ' | sort | uniq -d)
[ -z "$dups" ] || complain "row ids used twice: $(tr '\n' ' ' <<<"$dups")"
gap_rows=()
# id <TAB> status <TAB> the test citations of "checked by", space-separated
while IFS=$'\t' read -r id status cited; do
  [[ "$status" =~ ^(done|deviates|n/a|gap) ]] || { complain "row $id has no status (done/deviates/n/a/gap): [$status]"; continue; }
  [[ "$status" =~ ^gap ]] && gap_rows+=("$id")
  if [[ "$status" =~ ^deviates ]]; then
    named=0
    for d in $(grep -oE '\bD[0-9]+\b' <<<"$status" || true); do
      named=1; [ -n "${decision[$d]:-}" ] || complain "row $id names $d, not a decision of docs/protocol.md §1"
    done
    [ "$named" = 1 ] || complain "row $id deviates without naming its decision (D<n> of docs/protocol.md §1)"
  fi
  in_ci=0
  for t in $cited; do if ci_test "$t"; then in_ci=1; fi; done
  if [[ "$status" =~ ^(done|deviates) ]] && [ "$in_ci" -eq 0 ]; then
    complain "row $id is '${status%%[ :]*}' but cites no test that CI runs"
  fi
done < <(awk -F'|' '{
  id = $2; gsub(/ /, "", id); st = $(NF-1); sub(/^ +/, "", st); sub(/ +$/, "", st)
  c = $(NF-2); out = ""
  while (match(c, /`([A-Z][A-Za-z0-9]+\.([A-Z][A-Za-z0-9_]*(…)?|\*)|…[A-Za-z0-9_]+|[a-z0-9_]+\.(sh|mjs)|[a-z0-9_]+_test\.cc)`/)) {
    out = out " " substr(c, RSTART + 1, RLENGTH - 2); c = substr(c, RSTART + RLENGTH) }
  print id "\t" st "\t" out }' <<<"$rows")

# The Gaps table ("| row D5-44 | … |") lists exactly the gap rows.
listed=$(grep -oE '^\| row (R[1459]|D5)-[0-9]+ \|' "$doc" | awk '{print $3}' | sort)
expected=$(printf '%s\n' "${gap_rows[@]+"${gap_rows[@]}"}" | sed '/^$/d' | sort)
for id in $(comm -23 <(echo "$expected") <(echo "$listed")); do complain "row $id is a gap but not in the Gaps table"; done
for id in $(comm -13 <(echo "$expected") <(echo "$listed")); do complain "the Gaps table lists $id, which is not a gap row"; done

[ "$problems" -eq 0 ] || { echo "check-conformance: $problems problem(s) in $doc" >&2; exit 1; }
echo "check-conformance: $(wc -l <<<"$rows") rows ($(printf '%s\n' "${gap_rows[@]+"${gap_rows[@]}"}" | grep -c .) gaps); every done/deviates row cites a test CI runs, every deviation a decision"

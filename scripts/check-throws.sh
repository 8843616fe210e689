#!/usr/bin/env bash
# Keeps exceptions where docs/CONTRIBUTING.md "Exceptions" allows them. Counts the `throw`s of
# each folder's sources (broker_plugin/, common/, device_client/, tools/; a line of code with the
# word throw, comments left out) and fails when
#   - a folder throws that the table "Where throw is allowed" in docs/CONTRIBUTING.md does not list;
#   - a folder throws more often than the count written there (counts may only go down: lower the
#     table's number when you remove a throw).
# A listed folder that throws less than its number only gets a reminder, so removing a throw
# never breaks the build.
#
#   scripts/check-throws.sh [repo dir]   (CTest: lint.throws)
set -euo pipefail
repo=$(cd "${1:-$(dirname "$0")/..}" && pwd)
cd "$repo"
doc=docs/CONTRIBUTING.md

# The table's rows between its markers: | `folder` | count | why |
declare -A allowed=()
while IFS='|' read -r _ folder count _; do
  folder=$(echo "$folder" | tr -d ' `')
  count=$(echo "$count" | tr -d ' ')
  [[ "$count" =~ ^[0-9]+$ ]] && allowed[$folder]=$count
done < <(sed -n '/<!-- throws:begin -->/,/<!-- throws:end -->/p' "$doc")
[ "${#allowed[@]}" -gt 0 ] || { echo "check-throws: no table between <!-- throws:begin/end --> in $doc" >&2; exit 1; }

# One awk over every file (a process or two per file took most of a minute on a loaded machine):
# lines with the word throw once `//` comments are cut, summed per folder.
declare -A counted=()
while read -r folder n; do
  counted[$folder]=$(( ${counted[$folder]:-0} + n ))  # xargs may start awk more than once
done < <(find broker_plugin common device_client tools \( -name '*.cc' -o -name '*.h' \) -print0 |
         xargs -0 awk '{ sub(/\/\/.*/, "") }
                       /(^|[^A-Za-z0-9_])throw([^A-Za-z0-9_]|$)/ { d = FILENAME; sub(/\/[^\/]*$/, "", d); n[d]++ }
                       END { for (d in n) print d, n[d] }')

problems=0
for folder in $(printf '%s\n' "${!counted[@]}" | sort); do
  n=${counted[$folder]}
  if [ -z "${allowed[$folder]:-}" ]; then
    echo "check-throws: $folder throws $n times; it is not in $doc's table (return a Result instead)" >&2
    problems=$((problems + 1))
  elif [ "$n" -gt "${allowed[$folder]}" ]; then
    echo "check-throws: $folder throws $n times, more than the ${allowed[$folder]} $doc allows" >&2
    problems=$((problems + 1))
  elif [ "$n" -lt "${allowed[$folder]}" ]; then
    echo "check-throws: note: $folder throws $n times now; lower its number in $doc from ${allowed[$folder]}"
  fi
done
for folder in "${!allowed[@]}"; do
  [ -n "${counted[$folder]:-}" ] || echo "check-throws: note: $folder no longer throws; drop its row from $doc"
done
[ "$problems" -eq 0 ] || exit 1
echo "check-throws: every throw is in a folder $doc allows, within its count"

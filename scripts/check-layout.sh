#!/usr/bin/env bash
# Keeps docs/architecture.md and the source tree true to each other. Fails, listing each case, on
#   1. an `#include "…"` that runs against the order table of docs/architecture.md ("Which way
#      dependencies point"): a file may include its own folder, the folders listed before its own on
#      its side, and the sides the table names for it; files in a side's root sit above its folders;
#   2. a folder holding more than 20 source files (.cc and .h, CONTRIBUTING.md);
#   3. a backticked path in docs/architecture.md (a name with a slash that ends in `/` or a file
#      name ending .h .cc .sh .cmake .md .mjs .map) that names no tracked file or folder (matched
#      from its end: `core/fleet_plugin.h` matches broker_plugin/core/fleet_plugin.h).
#
#   scripts/check-layout.sh [repo dir]      (CTest: lint.layout)
set -euo pipefail
cd "${1:-$(dirname "$0")/..}"
map=docs/architecture.md

# Every file of the checkout, tracked or new but not ignored (a tarball without git: every file
# but build output and node modules).
if git rev-parse --git-dir >/dev/null 2>&1; then
  files=$(git ls-files --cached --others --exclude-standard)
else
  files=$(find . \( -name .git -o -name 'build*' -o -name node_modules \) -prune -o -type f -print | sed 's|^\./||')
fi

# 1. Includes against the order table. The first input is the table, the second every include
# line of the product's sources as file:line:text.
includes=$(grep -snE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' \
             $(grep -E '^(common|broker_plugin|device_client|tools)/.*\.(cc|h)$' <<<"$files") || true)
include_errors=$(awk -v map="$map" '
  function strip(s) { gsub(/[` ]/, "", s); return s }
  function side_of(path,   s, best) {          # the longest side that is a prefix of path
    best = ""
    for (s in rank_of_side) if (index(path, s) == 1 && length(s) > length(best)) best = s
    return best
  }
  function rank(side, path,   rest, folder) {   # rank of path inside side; the root sits on top
    rest = substr(path, length(side) + 1)
    if (index(rest, "/") == 0) return 1000
    folder = substr(rest, 1, index(rest, "/") - 1)
    return ((side, folder) in order) ? order[side, folder] : -1
  }
  FNR == NR {
    if ($0 ~ /^\| side \| folders, bottom to top \|/) { in_table = 1; next }
    if (in_table && $0 !~ /^\|/) in_table = 0
    if (!in_table || $0 ~ /^\|---/) next
    n = split($0, cell, "|")
    side = strip(cell[2]); rank_of_side[side] = 1
    k = split(cell[3], folder, /[` ]+/); r = 0
    for (i = 1; i <= k; i++) if (folder[i] != "") order[side, folder[i]] = ++r
    k = split(cell[4], other, /[` ,]+/)
    for (i = 1; i <= k; i++) if (other[i] != "") allowed[side, other[i]] = 1
    next
  }
  {
    file = $0; sub(/:.*/, "", file)
    line = $0; sub(/^[^:]*:/, "", line); sub(/:.*/, "", line)
    target = $0; sub(/^[^"]*"/, "", target); sub(/".*/, "", target)
    from = side_of(file)
    if (from == "") { print file ":" line ": " file " is on no side of the table"; next }
    if (index(target, from) == 1) {
      if (dirname_of(target) == dirname_of(file)) next
      r_target = rank(from, target); r_file = rank(from, file)
      if (r_file < 0) { print file ":" line ": its folder is not in the table"; next }
      if (r_target < 0) { print file ":" line ": includes " target ", whose folder is not in the table"; next }
      if (r_target < r_file) next
      print file ":" line ": includes " target ", a folder above or beside its own"
      next
    }
    to = side_of(target)
    if (to != "" && (from, to) in allowed) next
    print file ":" line ": includes " target ", a side " from " may not include"
  }
  function dirname_of(p) { sub(/\/[^\/]*$/, "", p); return p }
' "$map" - <<<"$includes")

# 2. Folders over 20 source files.
size_errors=$(grep -E '\.(cc|h)$' <<<"$files" | sed -E 's|/[^/]+$||' | sort | uniq -c |
              awk '$1 > 20 { print $2 "/: " $1 " source files (at most 20)" }')

# 3. Backticked paths of the map that name nothing.
path_errors=$(grep -oE '`[^`]+`' "$map" | tr -d '`' | sort -u | awk '
  FNR == NR {                      # every tracked file and folder, by each of its endings
    n = split($0, part, "/")
    for (last = 1; last <= n; last++) {          # the file and each folder above it, by each ending
      name = part[last]; known[name] = 1
      for (first = last - 1; first >= 1; first--) { name = part[first] "/" name; known[name] = 1 }
    }
    next
  }
  /[][ <>{}*$:]/ || /^[\/.-]/ { next }
  /\/$/ || (/\// && /\.[a-z]+$/) || /\.(h|cc|sh|cmake|md|mjs|map)$/ {
    p = $0; sub(/\/$/, "", p)
    if (!(p in known)) print "'"$map"': `" $0 "` names no file or folder"
  }
' <(printf '%s\n' "$files") -)

status=0
for kind in include_errors size_errors path_errors; do
  if [ -n "${!kind}" ]; then printf '%s\n' "${!kind}"; status=1; fi
done
[ "$status" = 0 ] && echo "check-layout: includes follow $map, folders hold at most 20 source files, its paths exist"
exit "$status"

#!/usr/bin/env bash
# Fails if a tracked file cites the project workspace instead of the repository: the old design file
# or the specification folders beside the checkout, which a person who clones the repository never
# has. Cite docs/protocol.md §N (or a decision D1..) and docs/conformance.md instead. It also fails
# on a bare "notes §N" / "plugin notes §N" citation (the workspace's platform notes): cite
# docs/platform-notes.md §Mn (mosquitto plugin API) or §Hn (MCP Streamable HTTP) instead.
#
#   scripts/check-references.sh [--fix] [repo dir]      (CTest: lint.references)
#
# --fix rewrites every such reference in place (idempotent; review and commit the result):
#   <design>.md, ../shared/<design>.md, "<design> §5", "<design> D7", "<design> section 5"
#                                        -> docs/protocol.md, docs/protocol.md §5, docs/protocol.md D7 …
#   shared/notes/mosquitto…              -> docs/protocol.md §6      shared/notes/mcp… -> docs/protocol.md §7
#   shared/seeds/…                       -> docs/conformance.md
# Bare "notes §N" citations are not fixed automatically: which section of docs/platform-notes.md is
# meant has to be read from the context.
#
# Exempt: schemas/*.json, published documents whose bytes are immutable per $id (their SHA-256 is in
# schemas/index.json and in devices' offline bundles), and this script.
set -euo pipefail
fix=0
if [ "${1:-}" = "--fix" ]; then fix=1; shift; fi
cd "${1:-$(dirname "$0")/..}"
git rev-parse --git-dir >/dev/null 2>&1 || { echo "check-references: not a git checkout, skipped"; exit 77; }
design='DESIGN'  # spelled in two parts so this file does not match itself
# The workspace's design file by any name: "../shared/…", "shared/seeds|notes|<design>", and the
# upper-case word itself (its sections, decisions and file name were cited as "<design> §5" etc.).
pattern="\.\./shared|shared/(seeds|notes|${design})|(^|[^A-Za-z0-9_])${design}([^A-Za-z0-9_]|\$)"
scope=(-- . ':!schemas/*.json' ':!scripts/check-references.sh')
# "notes §3", "plugin notes §9", "Notes§2.2": a section of the workspace's notes. The repository's
# own docs/platform-notes.md §M3 does not match: ".md" stands between "notes" and "§".
notes_pattern='[Nn]otes ?§'

if [ "$fix" = 1 ]; then
  # git grep exits 1 when nothing matches: then there is nothing to fix
  { git grep -lzE "$pattern" "${scope[@]}" || true; } | D="$design" xargs -0 -r perl -pi -e '
    BEGIN { $d = $ENV{D} }
    s{(?:\.\./)*shared/$d\.md}{docs/protocol.md}g;
    s{\b$d\.md\b}{docs/protocol.md}g;
    s{(?:\.\./)*shared/notes/mosquitto[\w.\@-]*}{docs/protocol.md §6}g;
    s{(?:\.\./)*shared/notes/mcp[\w.\@-]*}{docs/protocol.md §7}g;
    s{(?:\.\./)*shared/notes/?}{docs/protocol.md §6}g;
    s{(?:\.\./)*shared/seeds/?(?:[\w.-]+)?}{docs/conformance.md}g;
    s{\b$d (\d+)\b}{docs/protocol.md §$1}g;
    s{\b$d\b}{docs/protocol.md}g;'
fi

status=0
hits=$(git grep -nE "$pattern" "${scope[@]}" || true)
if [ -n "$hits" ]; then
  echo "$hits"
  echo "check-references: $(wc -l <<<"$hits") line(s) cite files outside the repository; point them at docs/protocol.md §N (scripts/check-references.sh --fix)" >&2
  status=1
fi
notes_hits=$(git grep -nE "$notes_pattern" "${scope[@]}" || true)
if [ -n "$notes_hits" ]; then
  echo "$notes_hits"
  echo "check-references: $(wc -l <<<"$notes_hits") line(s) cite \"notes §N\" without naming docs/platform-notes.md; cite docs/platform-notes.md §Mn or §Hn (no --fix: pick the section by hand)" >&2
  status=1
fi
[ "$status" = 0 ] || exit 1
echo "check-references: no tracked file cites outside the repository"

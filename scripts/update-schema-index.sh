#!/usr/bin/env bash
# Regenerates schemas/index.json: one {"id", "file", "sha256"} row per document in schemas/
# (every *.json but index.json itself), sorted by file name in the C locale, so the output depends
# only on the files' bytes. SchemaRegistry::load refuses any file whose SHA-256 or $id differs
# from its row (RFC 004 §5.3, fail closed), so run this after every change to schemas/.
#
#   scripts/update-schema-index.sh            rewrite schemas/index.json
#   scripts/update-schema-index.sh --check    exit 1 if schemas/index.json is out of date
#   scripts/update-schema-index.sh DIR        index another directory (e.g. an installed copy)
set -euo pipefail
export LC_ALL=C

check=0
if [ "${1:-}" = "--check" ]; then
  check=1
  shift
fi
dir=${1:-$(cd "$(dirname "$0")/.." && pwd)/schemas}
cd "$dir"

render() {
  local first=1 file id sum
  printf '[\n'
  while IFS= read -r file; do
    # The document's own "$id" line (top level; written one key per line in every document).
    id=$(sed -n 's/^  "\$id": *"\([^"]*\)".*$/\1/p' "$file" | head -n 1)
    if [ -z "$id" ]; then
      echo "update-schema-index: $dir/$file has no top-level \"\$id\"" >&2
      exit 1
    fi
    sum=$(sha256sum -- "$file" | cut -d ' ' -f 1)
    [ "$first" = 1 ] || printf ',\n'
    first=0
    printf '  {"id": "%s", "file": "%s", "sha256": "%s"}' "$id" "$file" "$sum"
  done < <(find . -maxdepth 1 -type f -name '*.json' ! -name index.json -printf '%f\n' | sort)
  printf '\n]\n'
}

new=$(render)
if [ "$check" = 1 ]; then
  if [ "$new" != "$(cat index.json 2>/dev/null)" ]; then
    echo "update-schema-index: $dir/index.json is out of date; run scripts/update-schema-index.sh" >&2
    exit 1
  fi
  echo "update-schema-index: $dir/index.json is up to date"
else
  printf '%s\n' "$new" > index.json.tmp
  mv index.json.tmp index.json
  echo "update-schema-index: wrote $dir/index.json ($(grep -c '"id"' index.json) documents)"
fi

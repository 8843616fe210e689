#!/usr/bin/env bash
# fleetctl jcs against an independent RFC 8785 implementation (npm canonicalize over JSON.parse):
# thousands of seeded values through `fleetctl jcs --lines`, whole documents (up to a 60 KiB
# manifest-like one) through plain `fleetctl jcs`, and the refusals of invalid input.
. "$(dirname "$0")/lib.sh"

NODE_DIR=$SRC/tests/node
[ -d "$NODE_DIR/node_modules/canonicalize" ] || fail "npm packages missing: run scripts/install-deps.sh (npm ci in tests/node)"
[ -x "$FLEETCTL" ] || fail "fleetctl not built at $FLEETCTL"

# 1. Thousands of values, one process.
node "$NODE_DIR/jcs_crosscheck.mjs" lines --fleetctl "$FLEETCTL" --seed "${JCS_SEED:-20241122}" --count 6000 \
  || fail "fleetctl jcs --lines differs from npm canonicalize"
pass "fleetctl jcs --lines matches npm canonicalize"

# 2. Whole documents through plain `fleetctl jcs`: exact bytes, no trailing newline.
names=$(node "$NODE_DIR/jcs_crosscheck.mjs" files --out "$T/docs")
for name in $names; do
  "$FLEETCTL" jcs <"$T/docs/$name.json" >"$T/docs/$name.out" 2>"$T/jcs-$name.log" \
    || fail "fleetctl jcs refused $name.json (see $T/jcs-$name.log)"
  cmp -s "$T/docs/$name.out" "$T/docs/$name.expected" \
    || fail "$name: fleetctl jcs output differs from npm canonicalize: $(cmp "$T/docs/$name.out" "$T/docs/$name.expected" 2>&1)"
  pass "plain fleetctl jcs: $name ($(wc -c <"$T/docs/$name.json") bytes in, $(wc -c <"$T/docs/$name.out") out)"
done
size=$(wc -c <"$T/docs/manifest_60k.json")
[ "$size" -ge 60000 ] && [ "$size" -le 65536 ] || fail "manifest_60k.json is $size bytes, wanted 60..64 KiB"
assert_eq "$(cat "$T/docs/rfc8785_sample.out")" \
  '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'"'"'B\"\\\\\"/"}' \
  "RFC 8785 §3.2.2 sample object"

# 3. Invalid input: exit 2 and an E_BAD_REQUEST envelope on stderr, nothing on stdout.
refuse() {
  local what=$1 input=$2 rc=0; shift 2
  printf '%s' "$input" | "$FLEETCTL" jcs "$@" >"$T/refused.out" 2>"$T/refused.err" || rc=$?
  assert_eq "$rc" 2 "$what: exit code"
  assert_contains "$(cat "$T/refused.err")" '"code":"E_BAD_REQUEST"' "$what: error envelope"
  assert_eq "$(wc -c <"$T/refused.out")" 0 "$what: no output"
}
refuse "duplicate key" '{"a":1,"a":2}'
refuse "number beyond double range" '[1e400]'
refuse "lone surrogate" '"\ud800"'
refuse "trailing garbage" '{} {}'
refuse "bad line in --lines" $'1\n[1,]\n' --lines
assert_contains "$(cat "$T/refused.err")" 'line 2' "--lines names the bad line"

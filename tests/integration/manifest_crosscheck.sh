#!/usr/bin/env bash
# docs/protocol.md §5 interoperability: `fleetctl manifest sign|verify` against an independent Node
# implementation (tests/node/manifest_crosscheck.mjs: npm canonicalize, @noble/hashes BLAKE3,
# @noble/curves Ed25519, Node's X.509/PKCS#8), both directions, plus the exit codes and error
# envelopes of `fleetctl manifest verify` (docs/protocol.md §11 seams).
. "$(dirname "$0")/lib.sh"

NODE_DIR=$SRC/tests/node
[ -d "$NODE_DIR/node_modules/canonicalize" ] && [ -d "$NODE_DIR/node_modules/@noble/curves" ] \
  || fail "Node test clients missing in $NODE_DIR/node_modules: run scripts/install-deps.sh"
xc() { node "$NODE_DIR/manifest_crosscheck.mjs" "$@"; }

# run VAR_OUT VAR_RC cmd... : captures stdout and exit code without tripping set -e.
run() {
  local __run_out_var=$1 __run_rc_var=$2 __run_out __run_rc=0; shift 2
  __run_out=$("$@" 2>>"$T/stderr.log") || __run_rc=$?
  printf -v "$__run_out_var" '%s' "$__run_out"
  printf -v "$__run_rc_var" '%s' "$__run_rc"
}
# envelope_code JSON : the code of an RFC-0001 error envelope; fails unless it has all three fields.
envelope_code() {
  node -e 'const e = JSON.parse(process.argv[1]);
    if (typeof e.code !== "string" || typeof e.message !== "string" || typeof e.suggested_fix !== "string"
        || !/^[\x20-\x7e]*$/.test(e.message + e.suggested_fix) || !e.suggested_fix.length) process.exit(1);
    console.log(e.code)' "$1" || fail "not an error envelope: [$1]"
}
# expect_refused WHAT CODE NEEDLE STDIN_FILE fleetctl-args... : exit 1 and the envelope on stdout.
expect_refused() {
  local what=$1 code=$2 needle=$3 input=$4; shift 4
  run out rc "$FLEETCTL" manifest verify "$@" <"$input"
  assert_eq "$rc" 1 "$what: exit code"
  assert_eq "$(envelope_code "$out")" "$code" "$what: envelope code"
  assert_contains "$out" "$needle" "$what: message"
}

# A fleet with two enrolled nodes.
pki_init
enroll() {
  local before after
  before=$(ls "$T/pki/nodes" 2>/dev/null || true)
  "$FLEETCTL" pki enroll --dir "$T/pki" --tenant acme >>"$T/enroll.log" 2>&1 || fail "fleetctl pki enroll (see enroll.log)"
  after=$(ls "$T/pki/nodes")
  comm -13 <(echo "$before" | sort) <(echo "$after" | sort) | head -n1
}
NODE=$(enroll)
OTHER=$(enroll)
[ -n "$NODE" ] && [ -n "$OTHER" ] || fail "pki enroll made no node bundle"
ND=$T/pki/nodes/$NODE
CA=$T/pki/ca.crt
[ -f "$ND/node.key" ] && [ -f "$ND/node.crt" ] || fail "bundle $ND lacks node.key/node.crt"

# (a) fleetctl signs, Node verifies.
"$FLEETCTL" manifest example --node-id "$NODE" >"$T/unsigned.json"
"$FLEETCTL" manifest sign --key "$ND/node.key" --cert "$ND/node.crt" <"$T/unsigned.json" >"$T/signed.json"
check=$(xc check --cert "$ND/node.crt" <"$T/signed.json") || fail "Node refused fleetctl's manifest: $check"
pass "Node recomputes payload_hash, verifies sig and kid, and finds the output is JCS"
node_etag=$(node -e 'console.log(JSON.parse(process.argv[1]).etag)' "$check")
run out rc "$FLEETCTL" manifest verify --ca "$CA" <"$T/signed.json"
assert_eq "$rc" 0 "fleetctl verifies its own manifest"
assert_eq "$out" "$node_etag" "etag: fleetctl == Node"
assert_eq "$("$FLEETCTL" b3 <"$T/signed.json")" "$node_etag" "etag == fleetctl b3 of the signed bytes"

# (b) Node signs, fleetctl verifies (enrolled certificate found from the CA's directory).
node_signed_etag=$(xc sign --key "$ND/node.key" --cert "$ND/node.crt" --out "$T/node-signed.json")
run out rc "$FLEETCTL" manifest verify --ca "$CA" <"$T/node-signed.json"
assert_eq "$rc" 0 "fleetctl accepts Node's manifest (stdout: $out)"
assert_eq "$out" "$node_signed_etag" "etag of Node's manifest: fleetctl == Node"
run out rc "$FLEETCTL" manifest verify --ca "$CA" --cert "$ND/node.crt" --topic-node "$NODE" --publisher "$NODE" --json \
  <"$T/node-signed.json"
assert_eq "$rc" 0 "accepted with --cert, --topic-node, --publisher"
assert_eq "$(node -e 'const s=JSON.parse(process.argv[1]); console.log(s.etag + " " + s.node_id + " " + s.capabilities)' "$out")" \
  "$node_signed_etag $NODE 2" "--json summary"

# (c) one byte changed by Node: refused by fleetctl, and by Node itself.
xc tamper <"$T/signed.json" >"$T/tampered.json"
cmp -s "$T/signed.json" "$T/tampered.json" && fail "tamper changed nothing"
expect_refused "tampered byte" E_ATTESTATION_FAILED "payload_hash" "$T/tampered.json" --ca "$CA"
xc check --cert "$ND/node.crt" <"$T/tampered.json" >/dev/null && fail "Node accepted the tampered manifest"
pass "Node refuses the tampered manifest too"

# (d) exit codes and envelopes of `fleetctl manifest verify`.
printf 'not json' >"$T/garbage"
expect_refused "garbage" E_MANIFEST_INVALID "not strict JSON" "$T/garbage" --ca "$CA"
expect_refused "topic of another node" E_ATTESTATION_FAILED "topic" "$T/signed.json" --ca "$CA" --topic-node "$OTHER"
expect_refused "publisher of another node" E_ATTESTATION_FAILED "publisher" "$T/signed.json" --ca "$CA" --publisher "$OTHER"
expect_refused "certificate of another node" E_ATTESTATION_FAILED "thumbprint" "$T/signed.json" --ca "$CA" \
  --cert "$T/pki/nodes/$OTHER/node.crt"
echo "$NODE" >"$T/revoked.txt"
expect_refused "revoked node" E_ATTESTATION_FAILED "revoked" "$T/signed.json" --ca "$CA" --revoked "$T/revoked.txt"
expect_refused "replay" E_MANIFEST_INVALID "replay" "$T/signed.json" --ca "$CA" --last-issued-ms 99999999999999
expect_refused "changed hardware" E_ATTESTATION_FAILED "hw_fingerprint" "$T/signed.json" --ca "$CA" \
  --pinned-hw "$(printf '0%.0s' {1..64})"
sed 's/"system\.echo"/"system.teleport"/' "$T/unsigned.json" \
  | "$FLEETCTL" manifest sign --key "$ND/node.key" --cert "$ND/node.crt" >"$T/unknown-kind.json"
expect_refused "unknown kind" E_KIND_UNSUPPORTED "capabilities[0].kind" "$T/unknown-kind.json" --ca "$CA"

# A fixed clock: sign at NOW with a 600 s TTL; valid until NOW+600000 exclusive.
NOW=$(( $(date +%s) * 1000 ))
"$FLEETCTL" manifest sign --key "$ND/node.key" --cert "$ND/node.crt" --now-ms $NOW --ttl-s 600 \
  <"$T/unsigned.json" >"$T/timed.json"
run out rc "$FLEETCTL" manifest verify --ca "$CA" --now-ms $((NOW + 599999)) <"$T/timed.json"
assert_eq "$rc" 0 "valid 1 ms before expiry"
expect_refused "expired" E_MANIFEST_INVALID "expired" "$T/timed.json" --ca "$CA" --now-ms $((NOW + 600000))
expect_refused "clock skew" E_MANIFEST_INVALID "ahead of the broker" "$T/timed.json" --ca "$CA" --now-ms $((NOW - 61000))
# Re-signing an existing manifest keeps its times unless told otherwise.
"$FLEETCTL" manifest sign --key "$ND/node.key" --cert "$ND/node.crt" <"$T/timed.json" >"$T/resigned.json"
run out rc "$FLEETCTL" manifest verify --ca "$CA" --now-ms $((NOW + 1)) <"$T/resigned.json"
assert_eq "$rc" 0 "re-signed manifest keeps issued_at_ms/expires_at_ms"

# No enrolled certificate next to this CA copy: refused at check 6, not a crash.
mkdir -p "$T/lonely" && cp "$CA" "$T/lonely/ca.crt"
expect_refused "no enrolled certificate" E_ATTESTATION_FAILED "no certificate" "$T/signed.json" --ca "$T/lonely/ca.crt"

# Usage and operator errors are not refusals.
run out rc "$FLEETCTL" manifest verify <"$T/signed.json"
assert_eq "$rc" 2 "verify without --ca: usage error"
run out rc "$FLEETCTL" manifest verify --ca "$T/nonexistent.crt" <"$T/signed.json"
assert_eq "$rc" 3 "verify with a missing CA file: failure"
run out rc "$FLEETCTL" manifest sign --key "$ND/node.key" --cert "$ND/node.crt" --ttl-s 86401 <"$T/unsigned.json"
assert_eq "$rc" 2 "sign --ttl-s over 24 h: usage error"
for sub in sign verify example; do
  run out rc "$FLEETCTL" manifest "$sub" --help
  assert_eq "$rc" 0 "manifest $sub --help"
  assert_contains "$out" "usage: fleetctl manifest $sub" "manifest $sub --help text"
done
echo "manifest_crosscheck: all checks passed"

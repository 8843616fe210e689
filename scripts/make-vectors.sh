#!/usr/bin/env bash
# Regenerates the protocol test vectors in docs/vectors/ (docs/protocol.md §5 and §6) with fleetctl.
#
#   scripts/make-vectors.sh [path/to/fleetctl]      (default: build/tools/fleetctl/fleetctl)
#
# Every run makes a NEW test CA, node key and node_id, so every byte of the outputs changes: commit
# them together. The keys are TEST MATERIAL, made for these vectors only; nothing trusts them.
# The vectors are checked by tests/unit/common/protocol/protocol_vectors_test.cc and
# tests/integration/protocol_vectors.sh, which compare exact bytes (Ed25519 signing is deterministic).
#
# Times are fixed (issued_at_ms below, verification at VECTOR_NOW_MS), so the vectors verify whatever
# the clock says; the certificates are valid for 100 years from the day they were made.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
FLEETCTL=${1:-$SRC/build/tools/fleetctl/fleetctl}
OUT=$SRC/docs/vectors
export FLEETMCP_SCHEMAS=$SRC/schemas

ISSUED_MS=1893456000000          # 2030-01-01T00:00:00Z
NOW_MS=$((ISSUED_MS + 60000))    # the verifier's clock for every vector: one minute later
TTL_S=3600

[ -x "$FLEETCTL" ] || { echo "make-vectors: no fleetctl at $FLEETCTL (build it first)" >&2; exit 2; }
[ "$(date +%s)000" -lt "$ISSUED_MS" ] || {
  echo "make-vectors: the clock is past ISSUED_MS; move ISSUED_MS forward (certificates start today)" >&2; exit 2; }

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fc() { "$FLEETCTL" "$@"; }

# ---- PKI: a CA and one node, 100 years ------------------------------------------------------------
fc pki init --dir "$T/pki" --days 36500 >/dev/null
NODE=$(fc pki enroll --dir "$T/pki" --tenant vectors --days 36500 2>/dev/null)
OTHER=$(fc pki enroll --dir "$T/pki" --tenant vectors --days 36500 2>/dev/null)  # for the revoked case
rm -rf "$OUT"
mkdir -p "$OUT/valid" "$OUT/invalid"
cp "$T/pki/ca.crt" "$OUT/ca.crt"
cp "$T/pki/nodes/$NODE/node.crt" "$OUT/node.crt"
cp "$T/pki/nodes/$NODE/node.key" "$OUT/node.key"
KID=$(openssl x509 -in "$OUT/node.crt" -outform DER | sha256sum | cut -c1-64)

# ---- valid manifests -------------------------------------------------------------------------------
# valid NAME < unsigned manifest JSON: writes NAME.unsigned.json, .p0.jcs, .p1.jcs, .signed.json,
# .expected.json (payload_hash, sig, etag, kid, now_ms).
valid() {
  local name=$1 d=$OUT/valid
  jq -S --argjson i "$ISSUED_MS" --argjson e "$((ISSUED_MS + TTL_S * 1000))" \
    '.issued_at_ms = $i | .expires_at_ms = $e' >"$d/$name.unsigned.json"
  fc manifest sign --key "$OUT/node.key" --cert "$OUT/node.crt" <"$d/$name.unsigned.json" >"$d/$name.signed.json"
  jq '.node_attestation.sig = "" | .node_attestation.payload_hash = ""' "$d/$name.signed.json" \
    | fc jcs >"$d/$name.p0.jcs"
  jq '.node_attestation.sig = ""' "$d/$name.signed.json" | fc jcs >"$d/$name.p1.jcs"
  local hash sig etag
  hash=$(fc b3 <"$d/$name.p0.jcs")
  etag=$(fc b3 <"$d/$name.signed.json")
  sig=$(jq -r .node_attestation.sig "$d/$name.signed.json")
  [ "$hash" = "$(jq -r .node_attestation.payload_hash "$d/$name.signed.json")" ] \
    || { echo "make-vectors: $name: payload_hash does not recompute" >&2; exit 1; }
  [ "$etag" = "$(fc manifest verify --ca "$OUT/ca.crt" --cert "$OUT/node.crt" --now-ms "$NOW_MS" <"$d/$name.signed.json")" ] \
    || { echo "make-vectors: $name: fleetctl manifest verify disagrees" >&2; exit 1; }
  jq -n --arg h "$hash" --arg s "$sig" --arg e "$etag" --arg k "$KID" --argjson n "$NOW_MS" \
    '{payload_hash: $h, sig: $s, etag: $e, kid: $k, now_ms: $n}' >"$d/$name.expected.json"
}

# 1. The mock device of RFC-0005 §9: system.echo + system.metrics (decision D2).
fc manifest example --node-id "$NODE" | valid mock

# 2. A Raspberry Pi catalogue device: a physical_actuation GPIO pin, a fractional rate limit (JCS
#    number formatting) and two hw_fingerprint sources (hashed in the listed order).
fc manifest example --node-id "$NODE" | jq --arg hw "$(printf 'machine_id=0123456789abcdef0123456789abcdef\ncpu_serial=100000002a3b4c5d\n' | fc b3)" '
  .hw_fingerprint = {algo: "blake3-256", sources: ["machine_id", "cpu_serial"], value: $hw}
  | .capabilities = [.capabilities[0], {cap_id: "gpio17", kind: "gpio.pin",
      schema_ref: "mcp://schemas/gpio.pin@1.0.0", verbs: ["get", "set"], safety_class: "physical_actuation",
      constraints: {rate_limit_rps: 0.5, max_concurrency: 1, deadline_ms_default: 1500}}]' | valid gpio

# ---- invalid manifests -----------------------------------------------------------------------------
# invalid NAME CODE CONTEXT_JSON WHY < payload bytes. CONTEXT_JSON holds the verifier inputs beyond the
# CA and node certificate: topic_node, publisher, last_issued_ms, pinned_hw, revoked (list of ids).
invalid() {
  cat >"$OUT/invalid/$1.json"
  # a file, not an array: most calls run at the end of a pipeline, in a subshell
  jq -cn --arg n "$1" --arg c "$2" --argjson x "$3" --arg w "$4" '{name: $n, code: $c, why: $w} + $x' >>"$T/cases.jsonl"
}
BASE=$OUT/valid/mock.unsigned.json
SIGNED=$OUT/valid/mock.signed.json
sign() { fc manifest sign --key "$OUT/node.key" --cert "$OUT/node.crt"; }

# check 1: size and strict JSON
{ printf '{"pad":"'; head -c 65536 /dev/zero | tr '\0' a; printf '"}'; } \
  | invalid too-large E_MANIFEST_INVALID '{}' "payload over 64 KiB"
jq -c . "$SIGNED" | sed 's/^{/{"node_id":"x",/' \
  | invalid duplicate-key E_MANIFEST_INVALID '{}' "a duplicate object key"
{ printf '{"manifest_version":"1.1.0","node_id":"'; printf '\xff\xfe'; printf '"}'; } \
  | invalid bad-utf8 E_MANIFEST_INVALID '{}' "invalid UTF-8"
printf '{"manifest_version":' | invalid truncated E_MANIFEST_INVALID '{}' "not JSON"
# check 2: kind registry
jq '.capabilities[0].kind = "system.reboot"' "$BASE" | sign \
  | invalid unknown-kind E_KIND_UNSUPPORTED '{}' "a kind that is not in the registry"
# check 3: schema, including the per-kind clamps
jq '.capabilities[0].constraints.deadline_ms_default = 6000' "$BASE" | sign \
  | invalid echo-deadline-clamp E_MANIFEST_INVALID '{}' "system.echo deadline_ms_default above 5000"
jq '.capabilities[1].safety_class = "reversible"' "$BASE" | sign \
  | invalid metrics-safety-clamp E_MANIFEST_INVALID '{}' "system.metrics must be read_only"
jq 'del(.capabilities)' "$BASE" | sign \
  | invalid missing-capabilities E_MANIFEST_INVALID '{}' "a required field is missing"
jq '.manifest_version = "1.0.0"' "$BASE" | sign \
  | invalid wrong-version E_MANIFEST_INVALID '{}' "manifest_version is not 1.1.0"
jq '.capabilities[0].cap_id = "echo_capability_name"' "$BASE" | sign \
  | invalid cap-id-too-long E_MANIFEST_INVALID '{}' "cap_id over 18 characters (64-char tool-name budget)"
# check 4: time
jq --argjson t "$((NOW_MS - 1000))" '.expires_at_ms = $t' "$BASE" | sign \
  | invalid expired E_MANIFEST_INVALID '{}' "now is not before expires_at_ms"
jq --argjson i "$((NOW_MS + 61000))" --argjson e "$((NOW_MS + 3661000))" '.issued_at_ms = $i | .expires_at_ms = $e' "$BASE" \
  | sign | invalid issued-in-future E_MANIFEST_INVALID '{}' "issued_at_ms more than 60 s after now"
jq --argjson e "$((ISSUED_MS + 86400001))" '.expires_at_ms = $e' "$BASE" | sign \
  | invalid ttl-over-24h E_MANIFEST_INVALID '{}' "expires_at_ms - issued_at_ms above 86400000"
# check 5: identity
invalid topic-mismatch E_ATTESTATION_FAILED "{\"topic_node\":\"$OTHER\"}" "node_id differs from the topic's id" <"$SIGNED"
invalid publisher-mismatch E_ATTESTATION_FAILED "{\"publisher\":\"$OTHER\"}" "node_id differs from the publisher's CN" <"$SIGNED"
# check 6: key id and certificate
jq --arg k "$(printf '%064d' 0)" '.node_attestation.kid = $k' "$SIGNED" | fc jcs \
  | invalid wrong-kid E_ATTESTATION_FAILED '{}' "kid is not the certificate's thumbprint"
invalid revoked E_ATTESTATION_FAILED "{\"revoked\":[\"$NODE\"]}" "the node is on the revocation list" <"$SIGNED"
# check 7: payload_hash, then signature
jq '.capabilities[0].constraints.rate_limit_rps = 11' "$SIGNED" | fc jcs \
  | invalid tampered E_ATTESTATION_FAILED '{}' "a field changed after signing: payload_hash no longer recomputes"
jq --arg s "$(jq -r .node_attestation.sig "$OUT/valid/gpio.signed.json")" '.node_attestation.sig = $s' "$SIGNED" | fc jcs \
  | invalid wrong-sig E_ATTESTATION_FAILED '{}' "payload_hash is right but the signature is another manifest's"
# check 8: replay
invalid replay E_MANIFEST_INVALID "{\"last_issued_ms\":$((ISSUED_MS + 1))}" "older than the last accepted manifest" <"$SIGNED"
# check 9: hardware pin
invalid hw-changed E_ATTESTATION_FAILED "{\"pinned_hw\":\"$(printf '%064d' 1)\"}" "hw_fingerprint differs from the pinned one" <"$SIGNED"

jq -s --argjson n "$NOW_MS" '{now_ms: $n, cases: .}' "$T/cases.jsonl" >"$OUT/invalid/cases.json"

# Each invalid case must get its code from fleetctl now, or the vectors are wrong.
while read -r row; do
  name=$(jq -r .name <<<"$row"); code=$(jq -r .code <<<"$row")
  args=(--ca "$OUT/ca.crt" --cert "$OUT/node.crt" --now-ms "$NOW_MS" --revoked "$T/revoked.txt")
  jq -r '.revoked // [] | .[]' <<<"$row" >"$T/revoked.txt"
  for k in topic_node:topic-node publisher:publisher last_issued_ms:last-issued-ms pinned_hw:pinned-hw; do
    v=$(jq -r ".${k%%:*} // empty" <<<"$row"); [ -z "$v" ] || args+=("--${k#*:}" "$v")
  done
  got=$(fc manifest verify "${args[@]}" <"$OUT/invalid/$name.json" 2>/dev/null | jq -r .code) || true
  [ "$got" = "$code" ] || { echo "make-vectors: invalid/$name: expected $code, fleetctl says $got" >&2; exit 1; }
done <"$T/cases.jsonl"
echo "make-vectors: wrote $OUT (node_id $NODE, kid $KID)"

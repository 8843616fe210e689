#!/usr/bin/env bash
# docs/vectors/ against the fleetctl seams of docs/protocol.md §11: `fleetctl manifest sign`
# re-signs every valid vector to its committed bytes, `fleetctl jcs` / `fleetctl b3` reproduce its
# P0, P1, payload_hash and etag, `fleetctl manifest verify` prints its etag (exit 0), and refuses every
# invalid vector with exit 1 and the code of its row in invalid/cases.json. The clock is fixed with
# --now-ms (the vectors' now_ms), so the vectors verify on any date.
. "$(dirname "$0")/lib.sh"

V=$SRC/docs/vectors
command -v jq >/dev/null || fail "jq is needed"
now=$(jq -r .now_ms "$V/invalid/cases.json")

for name in mock gpio; do
  d=$V/valid/$name
  kid=$(jq -r .kid "$d.expected.json")
  "$FLEETCTL" manifest sign --key "$V/node.key" --cert "$V/node.crt" <"$d.unsigned.json" >"$T/$name.signed"
  cmp -s "$T/$name.signed" "$d.signed.json" || fail "$name: fleetctl manifest sign differs from the committed bytes"
  jq '.node_attestation.sig = "" | .node_attestation.payload_hash = ""' "$d.signed.json" | "$FLEETCTL" jcs >"$T/p0"
  cmp -s "$T/p0" "$d.p0.jcs" || fail "$name: P0 differs"
  jq '.node_attestation.sig = ""' "$d.signed.json" | "$FLEETCTL" jcs >"$T/p1"
  cmp -s "$T/p1" "$d.p1.jcs" || fail "$name: P1 differs"
  assert_eq "$("$FLEETCTL" b3 <"$d.p0.jcs")" "$(jq -r .payload_hash "$d.expected.json")" "$name: payload_hash"
  assert_eq "$("$FLEETCTL" b3 <"$d.signed.json")" "$(jq -r .etag "$d.expected.json")" "$name: etag"
  assert_eq "$(openssl x509 -in "$V/node.crt" -outform DER | sha256sum | cut -c1-64)" "$kid" "$name: kid"
  node_id=$(jq -r .node_id "$d.signed.json")
  out=$("$FLEETCTL" manifest verify --ca "$V/ca.crt" --cert "$V/node.crt" --revoked /dev/null --now-ms "$now" \
        --topic-node "$node_id" --publisher "$node_id" <"$d.signed.json") || fail "$name: refused: $out"
  assert_eq "$out" "$(jq -r .etag "$d.expected.json")" "$name: verify prints the etag"
done

count=0
while read -r row; do
  name=$(jq -r .name <<<"$row")
  jq -r '.revoked // [] | .[]' <<<"$row" >"$T/revoked.txt"
  args=(--ca "$V/ca.crt" --cert "$V/node.crt" --now-ms "$now" --revoked "$T/revoked.txt")
  for k in topic_node:topic-node publisher:publisher last_issued_ms:last-issued-ms pinned_hw:pinned-hw; do
    v=$(jq -r ".${k%%:*} // empty" <<<"$row"); [ -z "$v" ] || args+=("--${k#*:}" "$v")
  done
  rc=0
  out=$("$FLEETCTL" manifest verify "${args[@]}" <"$V/invalid/$name.json" 2>>"$T/stderr.log") || rc=$?
  assert_eq "$rc" 1 "invalid/$name: exit code"
  assert_eq "$(jq -r .code <<<"$out")" "$(jq -r .code <<<"$row")" "invalid/$name: error code"
  count=$((count + 1))
done < <(jq -c '.cases[]' "$V/invalid/cases.json")
[ "$count" -ge 20 ] || fail "only $count invalid vectors"
echo "protocol_vectors: 2 valid and $count invalid vectors agree with fleetctl"

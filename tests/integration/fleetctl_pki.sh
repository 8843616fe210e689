#!/usr/bin/env bash
# fleetctl pki init/enroll/revoke and token issue/verify, checked with independent tools: openssl
# verifies the certificates, a real mosquitto TLS listener accepts a node's certificate, and the
# token round trip goes through the CLI both ways.
. "$(dirname "$0")/lib.sh"

P=$T/pki
mode() { stat -c %a "$1"; }
# expect_rc CODE WHAT COMMAND... : runs COMMAND, stderr to $T/err, asserts its exit code.
expect_rc() {
  local want=$1 what=$2 rc=0; shift 2
  "$@" >"$T/out" 2>"$T/err" || rc=$?
  assert_eq "$rc" "$want" "$what (exit code)"
}

# ---- pki init ----------------------------------------------------------------------------------
pki_init
for f in ca.key ca.crt issuer.key issuer.pub server.key server.crt revoked.txt; do
  [ -f "$P/$f" ] || fail "pki init did not write $f"
done
[ -d "$P/nodes" ] || fail "pki init did not create nodes/"
pass "pki init writes the documented layout"
for k in ca.key issuer.key server.key; do assert_eq "$(mode "$P/$k")" 600 "$k is mode 0600"; done
assert_eq "$(stat -c %s "$P/revoked.txt")" 0 "revoked.txt starts empty"

ca_text=$(openssl x509 -in "$P/ca.crt" -noout -text)
assert_contains "$ca_text" "Subject: CN = fleetmcp test root CA" "CA subject"
assert_contains "$ca_text" "ED25519" "CA key is Ed25519"
assert_contains "$(openssl x509 -in "$P/ca.crt" -noout -ext basicConstraints)" "critical" "CA basicConstraints critical"
assert_contains "$(openssl x509 -in "$P/ca.crt" -noout -ext basicConstraints)" "CA:TRUE" "CA basicConstraints CA:TRUE"
assert_contains "$(openssl x509 -in "$P/ca.crt" -noout -ext keyUsage)" "Certificate Sign, CRL Sign" "CA keyUsage"
openssl verify -CAfile "$P/ca.crt" "$P/server.crt" >/dev/null || fail "server.crt does not verify against ca.crt"
pass "server.crt verifies against ca.crt"
server_san=$(openssl x509 -in "$P/server.crt" -noout -ext subjectAltName)
assert_contains "$server_san" "DNS:localhost" "server SAN localhost"
assert_contains "$server_san" "IP Address:127.0.0.1" "server SAN 127.0.0.1"
assert_contains "$(openssl x509 -in "$P/server.crt" -noout -ext extendedKeyUsage)" "TLS Web Server Authentication" "server EKU"
assert_eq "$(openssl pkey -in "$P/issuer.key" -pubout)" "$(cat "$P/issuer.pub")" "issuer.pub is issuer.key's public half"

ca_before=$(cat "$P/ca.crt")
expect_rc 2 "pki init refuses to overwrite a CA" "$FLEETCTL" pki init --dir "$P"
assert_contains "$(cat "$T/err")" '"code":"E_BAD_REQUEST"' "refusal is an error envelope"
assert_eq "$(cat "$P/ca.crt")" "$ca_before" "the existing CA is untouched"

expect_rc 0 "pki init --force --san" "$FLEETCTL" pki init --dir "$T/pki2" --san DNS:broker.example,IP:10.1.2.3
expect_rc 0 "pki init --force replaces a CA" "$FLEETCTL" pki init --dir "$T/pki2" --force --san DNS:broker.example,IP:10.1.2.3
[ "$(cat "$T/pki2/ca.crt")" != "$ca_before" ] || fail "second PKI has the same CA"
assert_contains "$(openssl x509 -in "$T/pki2/server.crt" -noout -ext subjectAltName)" "DNS:broker.example, IP Address:10.1.2.3" "--san adds names"
expect_rc 2 "pki init rejects a malformed --san" "$FLEETCTL" pki init --dir "$T/pki3" --san "DNS:a b"

# ---- pki enroll --------------------------------------------------------------------------------
expect_rc 0 "pki enroll --count 3" "$FLEETCTL" pki enroll --dir "$P" --tenant acme --count 3
mapfile -t ids <"$T/out"
assert_eq "${#ids[@]}" 3 "enroll prints three node_ids"
for id in "${ids[@]}"; do
  [[ "$id" =~ ^[0-9a-hjkmnp-tv-z]{26}$ ]] || fail "node_id $id is not a lowercase ULID"
  b=$P/nodes/$id
  for f in node.key node.crt ca.crt device.conf; do [ -f "$b/$f" ] || fail "bundle $id lacks $f"; done
  assert_eq "$(mode "$b/node.key")" 600 "node.key of $id is mode 0600"
  openssl verify -CAfile "$P/ca.crt" "$b/node.crt" >/dev/null || fail "node.crt of $id does not verify"
  pass "openssl verifies $id against ca.crt"
  assert_eq "$(openssl x509 -in "$b/node.crt" -noout -subject -nameopt RFC2253)" "subject=CN=$id,O=acme" "subject of $id"
  assert_contains "$(openssl x509 -in "$b/node.crt" -noout -ext extendedKeyUsage)" "TLS Web Client Authentication" "EKU of $id"
  assert_contains "$(openssl x509 -in "$b/node.crt" -noout -ext basicConstraints)" "CA:FALSE" "$id is not a CA"
  assert_eq "$(openssl pkey -in "$b/node.key" -pubout)" "$(openssl x509 -in "$b/node.crt" -noout -pubkey)" "node.key matches node.crt ($id)"
  cmp -s "$b/ca.crt" "$P/ca.crt" || fail "bundle ca.crt differs from the CA"
  conf=$(cat "$b/device.conf")
  assert_contains "$conf" "node_id = $id" "device.conf node_id"
  assert_contains "$conf" "tenant = acme" "device.conf tenant"
  assert_contains "$conf" "broker = mqtts://127.0.0.1:8883" "device.conf default broker"
  assert_contains "$conf" "capability.echo = system.echo rate_limit_rps=10 max_concurrency=4 deadline_ms_default=2000" "device.conf echo"
done
serials=$(for id in "${ids[@]}"; do openssl x509 -in "$P/nodes/$id/node.crt" -noout -serial; done | sort -u | wc -l)
assert_eq "$serials" 3 "serial numbers differ"

expect_rc 0 "pki enroll --json" "$FLEETCTL" pki enroll --dir "$P" --tenant beta --json --broker mqtts://10.0.0.2:8883
read -r jid jbundle jkid < <(node -e 'const a=JSON.parse(require("fs").readFileSync(0,"utf8"));
  if(a.length!==1)process.exit(1);console.log(a[0].node_id,a[0].bundle,a[0].kid)' <"$T/out")
assert_eq "$jkid" "$(openssl x509 -in "$jbundle/node.crt" -outform DER | sha256sum | cut -c1-64)" "kid is SHA-256 of the DER"
assert_eq "$(basename "$jbundle")" "$jid" "bundle path ends in the node_id"
assert_contains "$(cat "$jbundle/device.conf")" "broker = mqtts://10.0.0.2:8883" "--broker lands in device.conf"

expect_rc 0 "pki enroll --count 25" "$FLEETCTL" pki enroll --dir "$P" --tenant acme --count 25
assert_eq "$(wc -l <"$T/out")" 25 "25 node_ids on stdout"
assert_contains "$(cat "$T/err")" "25/25" "progress on stderr above 20 nodes"

expect_rc 2 "enroll rejects an uppercase tenant" "$FLEETCTL" pki enroll --dir "$P" --tenant Acme
expect_rc 2 "enroll rejects a tenant starting with -" "$FLEETCTL" pki enroll --dir "$P" --tenant -x
expect_rc 2 "enroll rejects a plain-text broker" "$FLEETCTL" pki enroll --dir "$P" --tenant acme --broker mqtt://h:1883
expect_rc 2 "enroll without a CA" "$FLEETCTL" pki enroll --dir "$T/nothing" --tenant acme

# ---- a real TLS listener accepts a node certificate and refuses a client without one -----------
tls_port=$(free_port)
plain_port=$(free_port)
start_mosquitto "$(tls_broker_conf "$tls_port" "$plain_port")" broker
b=$P/nodes/${ids[0]}
mosquitto_pub -h 127.0.0.1 -p "$tls_port" --cafile "$P/ca.crt" --cert "$b/node.crt" --key "$b/node.key" \
  -t "fleetmcp/test" -m hello -q 1 >"$T/pub.log" 2>&1 || fail "mosquitto refused the node certificate ($(cat "$T/pub.log"))"
pass "mosquitto accepts a node certificate"
if mosquitto_pub -h 127.0.0.1 -p "$tls_port" --cafile "$P/ca.crt" -t "fleetmcp/test" -m hello -q 1 >"$T/pub.log" 2>&1; then
  fail "mosquitto accepted a client without a certificate"
fi
pass "mosquitto refuses a client without a certificate"
other=$T/pki2/nodes/$("$FLEETCTL" pki enroll --dir "$T/pki2" --tenant acme)
if mosquitto_pub -h 127.0.0.1 -p "$tls_port" --cafile "$P/ca.crt" --cert "$other/node.crt" --key "$other/node.key" \
  -t "fleetmcp/test" -m hello -q 1 >"$T/pub.log" 2>&1; then
  fail "mosquitto accepted a certificate from another CA"
fi
pass "mosquitto refuses a certificate from another CA"

# ---- tokens ------------------------------------------------------------------------------------
token=$("$FLEETCTL" token issue --dir "$P" --tenant acme --scope "devices:read tools:call:read_only" --ttl 30m --sub claude)
expect_rc 0 "token verify accepts an issued token" "$FLEETCTL" token verify --pub "$P/issuer.pub" <<<"$token"
claims=$(cat "$T/out")
for want in '"sub":"claude"' '"tenant":"acme"' '"scope":"devices:read tools:call:read_only"' '"aud":"fleetmcp"'; do
  assert_contains "$claims" "$want" "verified claims carry $want"
done
node -e 'const c=JSON.parse(process.argv[1]);if(c.exp-c.iat!==1800||!/^[0-9a-hjkmnp-tv-z]{26}$/.test(c.jti))process.exit(1)' "$claims" ||
  fail "exp-iat is not the ttl, or jti is not a ULID: $claims"
pass "ttl and jti"

expect_rc 1 "token verify refuses a wrong audience" "$FLEETCTL" token verify --pub "$P/issuer.pub" --aud other <<<"$token"
assert_contains "$(cat "$T/err")" '"code":"E_SAFETY_DENIED"' "refusal is an E_SAFETY_DENIED envelope"
expect_rc 1 "token verify refuses another fleet's issuer key" "$FLEETCTL" token verify --pub "$T/pki2/issuer.pub" <<<"$token"
expect_rc 1 "token verify refuses garbage" "$FLEETCTL" token verify --pub "$P/issuer.pub" <<<"not.a.token"
[[ "$(cat "$T/err")" != *claude* ]] || fail "refusal echoes the token"
json=$("$FLEETCTL" token issue --dir "$P" --tenant acme --scope tools:call:physical_actuation --aud gw --json)
jtoken=$(node -e 'console.log(JSON.parse(process.argv[1]).token)' "$json")
assert_eq "$(echo "$json" | jq -r .sub)" acme.agent "the default sub names the tenant (issue 24: no two tenants share it)"
expect_rc 0 "token issue --json token verifies with --aud" "$FLEETCTL" token verify --pub "$P/issuer.pub" --aud gw <<<"$jtoken"
expect_rc 2 "token issue refuses an unknown scope" "$FLEETCTL" token issue --dir "$P" --tenant acme --scope "devices:read admin"
expect_rc 2 "token issue refuses a bad ttl" "$FLEETCTL" token issue --dir "$P" --tenant acme --scope devices:read --ttl 1y
bridge=$("$FLEETCTL" token issue --dir "$P" --tenant acme --scope fleet:bridge --sub bridge-a --json)
assert_eq "$(echo "$bridge" | jq -r .scope)" "fleet:bridge" "a bridge token (docs/sharding.md)"
expect_rc 2 "fleet:bridge is a scope of its own" "$FLEETCTL" token issue --dir "$P" --tenant acme --scope "fleet:bridge devices:read"

# ---- revoke ------------------------------------------------------------------------------------
jti=$(node -e 'console.log(JSON.parse(process.argv[1]).jti)' "$claims")
expect_rc 0 "pki revoke" "$FLEETCTL" pki revoke --dir "$P" "${ids[0]}" "$jti"
assert_eq "$(cat "$T/out")" "$(printf '%s\n%s' "${ids[0]}" "$jti")" "revoke prints what it added"
assert_eq "$(cat "$P/revoked.txt")" "$(printf '%s\n%s' "${ids[0]}" "$jti")" "revoked.txt holds both"
expect_rc 0 "pki revoke again" "$FLEETCTL" pki revoke --dir "$P" "${ids[0]}" "${ids[1]}"
assert_eq "$(cat "$T/out")" "${ids[1]}" "revoke only prints new entries"
assert_eq "$(grep -c "${ids[0]}" "$P/revoked.txt")" 1 "revoke is idempotent"
assert_eq "$(wc -l <"$P/revoked.txt")" 3 "revoked.txt has three lines"
expect_rc 2 "revoke refuses what is not a ULID" "$FLEETCTL" pki revoke --dir "$P" "not-an-id"

# ---- every subcommand has --help ---------------------------------------------------------------
for cmd in "pki" "pki init" "pki enroll" "pki revoke" "token" "token issue" "token verify" "b3"; do
  # shellcheck disable=SC2086
  "$FLEETCTL" $cmd --help >"$T/help" 2>&1 </dev/null || fail "fleetctl $cmd --help exits non-zero"
  assert_contains "$(cat "$T/help")" "usage: fleetctl" "fleetctl $cmd --help"
done
# A missing or unknown subcommand: the envelope names the choices, exit 2 (one dispatcher for all).
for cmd in "pki bogus" "token" "manifest bogus"; do
  # shellcheck disable=SC2086
  answer=$("$FLEETCTL" $cmd 2>&1 </dev/null; echo $?)
  refused "$answer" 2 E_BAD_REQUEST "fleetctl $cmd is refused as a usage error"
  assert_contains "$REFUSAL" "fleetctl ${cmd%% *} " "fleetctl $cmd names the subcommands to use"
done

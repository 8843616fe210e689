#!/usr/bin/env bash
# fleetctl against a running fleet (docs/protocol.md §11): `fleetctl nodes` reads the retained
# status and announces over the agent listener as the token's sub; `fleetctl call` calls a tool
# through the RFC-0009 endpoint over TLS. Both take their endpoints and token from the variables
# scripts/local-fleet.sh prints, or from options.
. "$(dirname "$0")/lib.sh"

E2E_SCHEME=https
E2E_BROKER_LINES=("plugin_opt_http_tls_cert $T/pki/server.crt" "plugin_opt_http_tls_key $T/pki/server.key")
e2e_start 2
export FLEETMCP_URL=$E2E_URL FLEETMCP_MQTT=mqtt://127.0.0.1:$PORT_PLAIN FLEETMCP_TOKEN=$E2E_TOKEN
first=${E2E_NODES[0]}

# ---- fleetctl nodes -----------------------------------------------------------------------------
nodes=$("$FLEETCTL" nodes --json 2>"$T/nodes.err") || fail "fleetctl nodes: $(cat "$T/nodes.err")"
assert_eq "$(jq -r 'map(.node_id) | join(" ")' <<<"$nodes")" "$(printf '%s\n' "${E2E_NODES[@]}" | sort | paste -sd' ')" \
  "fleetctl nodes --json lists both nodes, ordered by node_id"
assert_eq "$(jq -r 'map(.state) | unique | join(",")' <<<"$nodes")" online "both are online"
assert_eq "$(jq -r --arg n "$first" '.[] | select(.node_id == $n) | .capabilities | map(.kind) | join(",")' <<<"$nodes")" \
  "system.echo,system.metrics" "each row has the manifest's capabilities"
etag=$(mosquitto_sub -V mqttv5 -p "$PORT_PLAIN" -u agent-e2e -P "$E2E_TOKEN" -i agent-e2e-check \
       -t "\$devices/$first/status" -C 1 -W 5 | jq -r .manifest_etag)
assert_eq "$(jq -r --arg n "$first" '.[] | select(.node_id == $n) | .manifest_etag' <<<"$nodes")" "$etag" \
  "the etag is the one in the plugin's retained status"

table=$("$FLEETCTL" nodes 2>"$T/nodes.err")
assert_contains "$(head -1 <<<"$table")" "NODE_ID" "the table has a header"
assert_contains "$table" "$first  online" "the table shows the node online"
assert_eq "$(cat "$T/nodes.err")" "2 node(s)" "the count goes to stderr"

other=$(agent_token agent-other other "devices:read")
assert_eq "$(FLEETMCP_TOKEN=$other "$FLEETCTL" nodes --json 2>/dev/null)" "[]" \
  "another tenant's token sees none of acme's nodes"

echo "$E2E_TOKEN" >"$T/token"
assert_eq "$(env -u FLEETMCP_TOKEN "$FLEETCTL" nodes --json --token-file "$T/token" | jq length)" 2 \
  "--token-file works in place of FLEETMCP_TOKEN"

rc=0; err=$("$FLEETCTL" nodes --token-file /dev/null 2>&1) || rc=$?
assert_eq "$rc" 2 "an empty token file is a usage error"
rc=0; err=$(FLEETMCP_TOKEN=not.a.token "$FLEETCTL" nodes 2>&1) || rc=$?
assert_eq "$rc:$(jq -r .code <<<"$err")" "2:E_BAD_REQUEST" "a token that is no JWT is refused before connecting"
# Same claims, signed by another fleet's issuer key.
"$FLEETCTL" pki init --dir "$T/other-pki" >/dev/null 2>&1 || fail "fleetctl pki init (another fleet)"
forged=$("$FLEETCTL" token issue --dir "$T/other-pki" --sub agent-e2e --tenant acme --scope devices:read)
rc=0; err=$(FLEETMCP_TOKEN=$forged "$FLEETCTL" nodes 2>&1) || rc=$?
assert_eq "$rc:$(jq -r .code <<<"$err")" "3:E_SAFETY_DENIED" "a token with a bad signature cannot log in (exit 3)"
assert_contains "$(jq -r .suggested_fix <<<"$err")" "fleetctl token verify" "the envelope says how to check the token"
rc=0; err=$(FLEETMCP_MQTT=mqtt://127.0.0.1:$(free_port) "$FLEETCTL" nodes 2>&1) || rc=$?
assert_eq "$rc:$(jq -r .code <<<"$err")" "3:E_INTERNAL" "nothing listening: exit 3"
assert_contains "$(jq -r .suggested_fix <<<"$err")" "agent listener" "the envelope says what to check"

# ---- fleetctl call ------------------------------------------------------------------------------
answer=$("$FLEETCTL" call "sysecho.$first.echo.invoke" '{"message":"hi"}' --cacert "$T/pki/ca.crt") \
  || fail "fleetctl call echo"
assert_eq "$(jq -r .message <<<"$answer"):$(jq -r .node_id <<<"$answer")" "hi:$first" "the echo comes back from the node"
answer=$("$FLEETCTL" call "sysecho-$first-echo-invoke" --cacert "$T/pki/ca.crt" '{"message":"dashed"}') \
  || fail "fleetctl call with the dashed name"
assert_eq "$(jq -r .message <<<"$answer")" dashed "the dashed tool name works too"

fleetctl_refused() {  # fleetctl_refused WANT_RC WANT_CODE ARGS... : fleetctl call exits WANT_RC, the envelope on stderr
  local want_rc=$1 want_code=$2 rc=0 err; shift 2
  err=$("$FLEETCTL" call "$@" 2>&1 >/dev/null) || rc=$?
  refused "$err"$'\n'"$rc" "$want_rc" "$want_code" "fleetctl call $*: exit $want_rc, $want_code"
}
fleetctl_refused 1 E_MANIFEST_INVALID "sysecho.$first.echo.invoke" '{"message":5}' --cacert "$T/pki/ca.crt"
assert_contains "$REFUSAL" "/message" "bad arguments: exit 1, the envelope names the argument"
fleetctl_refused 1 E_MANIFEST_NOT_FOUND "sysecho.01m88jxrf92ry5qz896129m8fj.echo.invoke" --cacert "$T/pki/ca.crt"
pass "an unknown node's tool: exit 1 with the endpoint's envelope"
fleetctl_refused 2 E_BAD_REQUEST "sysecho.$first.echo.invoke" '[1]' --cacert "$T/pki/ca.crt"
pass "arguments that are not an object: exit 2"
fleetctl_refused 1 E_SAFETY_DENIED "sysecho.$first.echo.invoke" --cacert "$T/pki/ca.crt" --token-file <(agent_token agent-ro acme "devices:read")
pass "a token without a call scope: exit 1, refused by the endpoint"
fleetctl_refused 3 E_INTERNAL "sysecho.$first.echo.invoke"
assert_contains "$REFUSAL" "--cacert" "an https URL without the fleet's CA: exit 3, the fix names --cacert"
fleetctl_refused 3 E_INTERNAL "sysecho.$first.echo.invoke" --url "http://127.0.0.1:$(free_port)/mcp"
pass "nothing listening: exit 3"
silent=$(free_port)
node -e 'require("net").createServer(() => {}).listen(+process.argv[1], "127.0.0.1")' "$silent" &
track $!
wait_for_port "$silent"
fleetctl_refused 3 E_DEADLINE_EXCEEDED "sysecho.$first.echo.invoke" --url "http://127.0.0.1:$silent/mcp" --timeout-s 1
pass "a server that never answers: exit 3 after --timeout-s"
fleetctl_refused 2 E_BAD_REQUEST "sysecho.$first.echo.invoke" --url "ftp://x/mcp"
assert_contains "$(env -u FLEETMCP_URL "$FLEETCTL" call x 2>&1)" "FLEETMCP_URL" "no URL: the error names FLEETMCP_URL"

"$FLEETCTL" --help | grep -q "^  nodes " || fail "fleetctl --help lists nodes"
"$FLEETCTL" call --help | grep -q "ARGUMENTS_JSON" || fail "fleetctl call --help"
"$FLEETCTL" nodes --help | grep -q "FLEETMCP_MQTT" || fail "fleetctl nodes --help"
pass "--help covers both commands"

#!/usr/bin/env bash
# fleetctl b3 must print exactly what the reference implementation (b3sum, Rust) prints: on the
# lengths of the official BLAKE3 test vectors (input bytes i % 251) and on random files up to 1 MiB.
. "$(dirname "$0")/lib.sh"

command -v b3sum >/dev/null || fail "b3sum is not installed (scripts/install-deps.sh)"

# 251-byte pattern 0,1,…,250 repeated past the longest vector (102400 bytes).
for i in $(seq 0 250); do printf "\\$(printf %03o "$i")"; done >"$T/pattern"
for _ in $(seq 1 410); do cat "$T/pattern"; done >"$T/pattern.long"

check() {  # check FILE WHAT
  local ours theirs
  ours=$("$FLEETCTL" b3 <"$1") || fail "fleetctl b3 failed on $2"
  theirs=$(b3sum --no-names <"$1")
  assert_eq "$ours" "$theirs" "b3 $2"
}

for n in 0 1 1023 1024 1025 2048 2049 3072 3073 4096 4097 5120 5121 6144 6145 7168 7169 8192 8193 16384 31744 102400; do
  head -c "$n" "$T/pattern.long" >"$T/vector"
  check "$T/vector" "official vector input_len=$n"
done

# Two official hashes verbatim, independent of b3sum (the second also pins the pattern above).
assert_eq "$("$FLEETCTL" b3 </dev/null)" af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262 "b3 of empty input"
assert_eq "$(head -c 1024 "$T/pattern.long" | "$FLEETCTL" b3)" \
  42214739f095a406f3fc83deb889744ac00df831c10daa55189b5d121c855af7 "b3 official vector 1024 verbatim"

for n in 1048576 1048575 65536 65537 $((RANDOM * 32 % 1048576)) $((RANDOM * 32 % 1048576)) $((RANDOM % 4096)); do
  head -c "$n" /dev/urandom >"$T/random"
  check "$T/random" "random file of $n bytes"
done

# Through a pipe (short reads), not just a redirected file.
head -c 1048576 /dev/urandom >"$T/random"
assert_eq "$(cat "$T/random" | "$FLEETCTL" b3)" "$(b3sum --no-names <"$T/random")" "b3 through a pipe"

"$FLEETCTL" b3 --help >/dev/null || fail "fleetctl b3 --help"
pass "b3 --help exits 0"
rc=0; "$FLEETCTL" b3 extra-argument </dev/null 2>"$T/err" || rc=$?
assert_eq "$rc" 2 "b3 with an argument is a usage error"
assert_contains "$(cat "$T/err")" '"code":"E_BAD_REQUEST"' "b3 usage error is an envelope"

// The requestState of a 2026-07-28 input_required result (multi-round-trip request): what the
// server needs back when the client repeats the call with its user's answer. No session holds it,
// so the client does, and it must be tamper-evident: a MAC (libsodium crypto_auth, HMAC-SHA-512-256)
// under a key only the fronts hold, over the caller, the tool, the arguments' hash, an expiry and
// the commit token the gate issued for the call (docs/http-front.md, "Revisions").
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/base/result.h"

namespace fleetmcp::http {

// What a requestState binds. `caller` and `tool` as CommitBinding spells them, `arguments_hash` of
// the call's arguments without the commit token.
struct SealedCall {
  std::string caller;
  std::string tool;
  std::string arguments_hash;
  int64_t expires_ms = 0;  // Unix milliseconds
  std::string commit_token;
};

class RequestStates {
 public:
  // `key`: 32 bytes (FrontOptions::request_state_key), which fronts behind one balancer share, so a
  // state sealed by one opens at another. Empty: a fresh random key, and states sealed by another
  // front (or before a restart) do not open here.
  explicit RequestStates(std::string_view key = {});

  // Text safe for JSON and headers: base64url of the fields, ".", base64url of the MAC.
  std::string seal(const SealedCall& call) const;
  // The sealed call when `state` carries this key's MAC, binds `caller`, `tool` and
  // `arguments_hash`, and has not expired at `now_ms`; otherwise an E_SAFETY_DENIED envelope
  // saying which (nothing of the state is trusted before its MAC is checked).
  Result<SealedCall> open(std::string_view state, std::string_view caller, std::string_view tool,
                          std::string_view arguments_hash, int64_t now_ms) const;

 private:
  std::array<unsigned char, 32> key_{};  // crypto_auth_KEYBYTES
};

}  // namespace fleetmcp::http

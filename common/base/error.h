// The one error type of fleetmcp: the RFC-0001 §4 envelope (plus E_BAD_REQUEST, docs/protocol.md D4).
//
// A failure that is a value is a Result<T> / Status holding an ErrorEnvelope (common/base/result.h);
// fleetmcp::Error carries the envelope where a failure must be thrown: constructors and start-up
// code (docs/CONTRIBUTING.md "Errors"). Thrown errors are caught only at boundaries: main(), a
// broker callback (the C ABI), a device's command dispatcher. There the envelope is what the user
// sees. Expected outcomes such as an ACL verdict or a cache miss are ordinary return values.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fleetmcp {

enum class ErrorCode {
  kManifestNotFound,
  kManifestInvalid,
  kAttestationFailed,
  kKindUnsupported,
  kVerbUnsupported,
  kRateLimited,
  kDeadlineExceeded,
  kNodeOffline,
  kSafetyDenied,
  kInternal,
  kBadRequest,  // error@1.1.0 only (docs/protocol.md D4)
  kInvalidArguments,  // error@1.3.0 only: what MCP callers get for bad tool arguments (docs/protocol.md D41)
};

// "E_MANIFEST_INVALID" etc.
std::string_view error_code_name(ErrorCode code);
// The inverse; nullopt for anything that is not one of the names above.
std::optional<ErrorCode> error_code_from_name(std::string_view name);

// RFC-0001 §4 envelope. message and suggested_fix are server-templated ASCII: the constructor
// replaces anything outside 0x20..0x7E with '?' and truncates to 512 characters, so an envelope
// always validates against mcp://schemas/error@1.1.0 whatever was passed in.
struct ErrorEnvelope {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  std::string suggested_fix;
  std::optional<int64_t> retry_after_ms;
  std::optional<std::string> correlation_id;  // uppercase ULID
  // details.reason: Doc 05 §9.1.1's symbolic code of a device's error, a closed set
  // (common/protocol/cmd_ack.h DeviceReason), never device text. Only the plugin sets it, on what
  // it tells agents; an envelope a node sends in a cmd_ack has none (cmd_ack@1.0.0 has no field).
  std::string reason;
  // details.dependent_services: with reason failed_precondition, the active services that depend on
  // the unit a call would stop or disable (Doc 05 addendum §6.1). Each is a service unit name the
  // plugin checked (common/ids/unit_name.h); set only by the plugin, like reason.
  std::vector<std::string> dependent_services;

  ErrorEnvelope() = default;
  ErrorEnvelope(ErrorCode code, std::string_view message, std::string_view suggested_fix);

  // Compact JSON object, keys in schema order: {"code":…,"message":…,"suggested_fix":…,…}, then
  // "details":{"reason":…,"dependent_services":[…]} when there is a reason (mcp://schemas/error@1.2.0).
  std::string to_json() const;
  // "E_CODE: message", for a log line (and Error::what()).
  std::string summary() const;
};

// docs/protocol.md §4.3 step 5: a node's E_DEADLINE_EXCEEDED whose message starts with this says it
// did not run the command (it arrived after its deadline), so the caller can be told nothing ran.
inline constexpr std::string_view kNotRunPrefix = "not run:";

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, std::string_view message, std::string_view suggested_fix);
  explicit Error(ErrorEnvelope envelope);

  const ErrorEnvelope& envelope() const { return envelope_; }
  ErrorCode code() const { return envelope_.code; }

  Error& with_retry_after_ms(int64_t ms) {
    envelope_.retry_after_ms = ms;
    return *this;
  }

 private:
  ErrorEnvelope envelope_;
};

// Keeps only printable ASCII (0x20..0x7E), replacing other bytes with '?', at most max_len chars.
std::string ascii_clamp(std::string_view text, size_t max_len = 512);

}  // namespace fleetmcp

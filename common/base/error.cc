#include "common/base/error.h"

#include <array>
#include <utility>

#include "common/base/error_value.h"

namespace fleetmcp {
namespace {

constexpr std::array<std::pair<ErrorCode, std::string_view>, 12> kNames{{
    {ErrorCode::kManifestNotFound, "E_MANIFEST_NOT_FOUND"},
    {ErrorCode::kManifestInvalid, "E_MANIFEST_INVALID"},
    {ErrorCode::kAttestationFailed, "E_ATTESTATION_FAILED"},
    {ErrorCode::kKindUnsupported, "E_KIND_UNSUPPORTED"},
    {ErrorCode::kVerbUnsupported, "E_VERB_UNSUPPORTED"},
    {ErrorCode::kRateLimited, "E_RATE_LIMITED"},
    {ErrorCode::kDeadlineExceeded, "E_DEADLINE_EXCEEDED"},
    {ErrorCode::kNodeOffline, "E_NODE_OFFLINE"},
    {ErrorCode::kSafetyDenied, "E_SAFETY_DENIED"},
    {ErrorCode::kInternal, "E_INTERNAL"},
    {ErrorCode::kBadRequest, "E_BAD_REQUEST"},
    {ErrorCode::kInvalidArguments, "E_INVALID_ARGUMENTS"},
}};

}  // namespace

std::string_view error_code_name(ErrorCode code) {
  for (const auto& [c, name] : kNames) {
    if (c == code) return name;
  }
  return "E_INTERNAL";
}

std::optional<ErrorCode> error_code_from_name(std::string_view name) {
  for (const auto& [c, n] : kNames) {
    if (n == name) return c;
  }
  return std::nullopt;
}

std::string ascii_clamp(std::string_view text, size_t max_len) {
  std::string out;
  out.reserve(std::min(text.size(), max_len));
  for (char ch : text) {
    if (out.size() == max_len) break;
    const auto c = static_cast<unsigned char>(ch);
    out.push_back(c >= 0x20 && c <= 0x7E ? ch : '?');
  }
  return out;
}

ErrorEnvelope::ErrorEnvelope(ErrorCode c, std::string_view msg, std::string_view fix)
    : code(c), message(ascii_clamp(msg)), suggested_fix(ascii_clamp(fix)) {}

json::Value error_value(const ErrorEnvelope& e, json::Allocator& a) {
  json::Value v(rapidjson::kObjectType);
  const std::string_view name = error_code_name(e.code);  // static text: referred to, not copied
  v.AddMember("code", json::Value(rapidjson::StringRef(name.data(), name.size())), a);
  v.AddMember("message", json::string_value(e.message, a), a);
  v.AddMember("suggested_fix", json::string_value(e.suggested_fix, a), a);
  if (e.retry_after_ms) v.AddMember("retry_after_ms", json::Value(*e.retry_after_ms), a);
  if (e.correlation_id) v.AddMember("correlation_id", json::string_value(*e.correlation_id, a), a);
  if (!e.reason.empty()) {
    json::Value details(rapidjson::kObjectType);
    details.AddMember("reason", json::string_value(e.reason, a), a);
    if (!e.dependent_services.empty()) {
      json::Value services(rapidjson::kArrayType);
      for (const std::string& service : e.dependent_services) services.PushBack(json::string_value(service, a), a);
      details.AddMember("dependent_services", services, a);
    }
    v.AddMember("details", details, a);
  }
  return v;
}

std::string ErrorEnvelope::to_json() const {
  // One shape, error_value's, written out. Its memory is a pool on the stack, large enough for the
  // texts the constructor clamps to 512 characters each: only the returned string is allocated.
  char buffer[2048];
  json::Allocator pool(buffer, sizeof buffer);
  return json::to_string(error_value(*this, pool));
}

std::string ErrorEnvelope::summary() const { return std::string(error_code_name(code)) + ": " + message; }

Error::Error(ErrorCode code, std::string_view message, std::string_view suggested_fix)
    : Error(ErrorEnvelope(code, message, suggested_fix)) {}

Error::Error(ErrorEnvelope envelope)
    : std::runtime_error(envelope.summary()),
      envelope_(std::move(envelope)) {}

}  // namespace fleetmcp

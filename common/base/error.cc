#include "common/base/error.h"

#include <array>
#include <utility>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace fleetmcp {
namespace {

constexpr std::array<std::pair<ErrorCode, std::string_view>, 11> kNames{{
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

std::string ErrorEnvelope::to_json() const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("code");
  const auto name = error_code_name(code);
  w.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
  w.Key("message");
  w.String(message.data(), static_cast<rapidjson::SizeType>(message.size()));
  w.Key("suggested_fix");
  w.String(suggested_fix.data(), static_cast<rapidjson::SizeType>(suggested_fix.size()));
  if (retry_after_ms) {
    w.Key("retry_after_ms");
    w.Int64(*retry_after_ms);
  }
  if (correlation_id) {
    w.Key("correlation_id");
    w.String(correlation_id->data(), static_cast<rapidjson::SizeType>(correlation_id->size()));
  }
  if (!reason.empty()) {
    w.Key("details");
    w.StartObject();
    w.Key("reason");
    w.String(reason.data(), static_cast<rapidjson::SizeType>(reason.size()));
    if (!dependent_services.empty()) {
      w.Key("dependent_services");
      w.StartArray();
      for (const std::string& name : dependent_services) {
        w.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
      }
      w.EndArray();
    }
    w.EndObject();
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

std::string ErrorEnvelope::summary() const { return std::string(error_code_name(code)) + ": " + message; }

Error::Error(ErrorCode code, std::string_view message, std::string_view suggested_fix)
    : Error(ErrorEnvelope(code, message, suggested_fix)) {}

Error::Error(ErrorEnvelope envelope)
    : std::runtime_error(envelope.summary()),
      envelope_(std::move(envelope)) {}

}  // namespace fleetmcp

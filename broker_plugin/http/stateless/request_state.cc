#include "broker_plugin/http/stateless/request_state.h"

#include <sodium.h>

#include <algorithm>

#include "common/base/bytes.h"
#include "common/base/json.h"

namespace fleetmcp::http {
namespace {

static_assert(crypto_auth_KEYBYTES == 32, "RequestStates::key_ is crypto_auth's key");

ErrorEnvelope refused(std::string why) {
  return ErrorEnvelope(ErrorCode::kSafetyDenied, "the confirmation's requestState " + std::move(why),
                       "call the tool again without requestState and inputResponses, and confirm anew; nothing was "
                       "sent to the device");
}

std::array<unsigned char, crypto_auth_BYTES> mac(std::string_view text, const std::array<unsigned char, 32>& key) {
  std::array<unsigned char, crypto_auth_BYTES> tag{};
  crypto_auth(tag.data(), reinterpret_cast<const unsigned char*>(text.data()), text.size(), key.data());
  return tag;
}

}  // namespace

RequestStates::RequestStates(std::string_view key) {
  if (key.size() == key_.size()) {
    std::copy(key.begin(), key.end(), key_.begin());
  } else {
    crypto_auth_keygen(key_.data());
  }
}

std::string RequestStates::seal(const SealedCall& call) const {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("caller", json::string_value(call.caller, a), a);
  d.AddMember("tool", json::string_value(call.tool, a), a);
  d.AddMember("arguments", json::string_value(call.arguments_hash, a), a);
  d.AddMember("expires_ms", call.expires_ms, a);
  d.AddMember("commit_token", json::string_value(call.commit_token, a), a);
  const std::string fields = json::to_string(d);
  return base64url_encode(as_bytes(fields)) + "." + base64url_encode(mac(fields, key_));
}

Result<SealedCall> RequestStates::open(std::string_view state, std::string_view caller, std::string_view tool,
                                       std::string_view arguments_hash, int64_t now_ms) const {
  const size_t dot = state.find('.');
  const auto fields = dot == std::string_view::npos ? std::nullopt : base64url_decode(state.substr(0, dot));
  const auto tag = dot == std::string_view::npos ? std::nullopt : base64url_decode(state.substr(dot + 1));
  if (!fields || !tag || tag->size() != crypto_auth_BYTES ||
      crypto_auth_verify(tag->data(), fields->data(), fields->size(), key_.data()) != 0) {
    return refused("is not one this server issued (or it was altered)");
  }
  const auto d = json::parse_strict(std::string_view(reinterpret_cast<const char*>(fields->data()), fields->size()));
  if (!d || !d->IsObject()) return refused("is not one this server issued");
  SealedCall call{std::string(json::get_string(*d, "caller").value_or("")), std::string(json::get_string(*d, "tool").value_or("")),
                  std::string(json::get_string(*d, "arguments").value_or("")), json::get_int64(*d, "expires_ms").value_or(0),
                  std::string(json::get_string(*d, "commit_token").value_or(""))};
  if (call.caller != caller || call.tool != tool || call.arguments_hash != arguments_hash) {
    return refused("was issued for another caller, tool or arguments");
  }
  if (now_ms >= call.expires_ms) return refused("has expired");
  return call;
}

}  // namespace fleetmcp::http

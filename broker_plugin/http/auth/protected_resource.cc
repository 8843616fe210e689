#include "broker_plugin/http/auth/protected_resource.h"

#include <algorithm>

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "common/crypto/agent_token.h"
#include "common/base/error.h"

namespace fleetmcp::http {
namespace {

constexpr std::string_view kWellKnown = "/.well-known/oauth-protected-resource";

// "http://h:1/mcp" -> ("http://h:1", "/mcp").
std::pair<std::string, std::string> split_url(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t path = scheme == std::string::npos ? std::string::npos : url.find('/', scheme + 3);
  if (path == std::string::npos) return {url, ""};
  return {url.substr(0, path), url.substr(path)};
}

// RFC 7235 quoted-string content: the values here are server text, but keep quotes out anyway.
// (Not `quoted`: for a std::string argument, argument-dependent lookup also finds std::quoted,
// which gcc 14's headers declare here, and prefers it: trixie's build failed.)
std::string quoted_string(std::string_view text) {
  std::string out = "\"";
  for (char c : ascii_clamp(text, 200)) out += (c == '"' || c == '\\') ? '\'' : c;
  return out + "\"";
}

constexpr std::string_view kAllScopes[] = {kScopeDevicesRead, kScopeCallReadOnly, kScopeCallReversible,
                                           kScopeCallPhysical};

// Adds `word` unless it is there already.
void add_once(std::vector<std::string>& words, std::string word) {
  if (std::find(words.begin(), words.end(), word) == words.end()) words.push_back(std::move(word));
}

}  // namespace

ProtectedResource::ProtectedResource(std::string resource_url, std::vector<std::string> authorization_servers,
                                     std::vector<TrustedIssuer> issuers)
    : resource_url_(std::move(resource_url)),
      authorization_servers_(std::move(authorization_servers)),
      issuers_(std::move(issuers)) {
  const auto [origin, path] = split_url(resource_url_);
  metadata_path_ = std::string(kWellKnown) + path;
  metadata_url_ = origin + metadata_path_;
  for (const auto& issuer : issuers_) add_once(authorization_servers_, issuer.issuer);
  // Never offline_access: refresh tokens are between the client and its authorization server.
  for (std::string_view ours : kAllScopes) {
    if (issuers_.empty()) add_once(scopes_, std::string(ours));
    for (const auto& issuer : issuers_) add_once(scopes_, issuer.their_scope(ours));
  }
}

std::string ProtectedResource::metadata_json() const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("resource");
  w.String(resource_url_.c_str());
  if (!authorization_servers_.empty()) {
    w.Key("authorization_servers");
    w.StartArray();
    for (const auto& as : authorization_servers_) w.String(as.c_str());
    w.EndArray();
  }
  w.Key("scopes_supported");
  w.StartArray();
  for (const auto& s : scopes_) w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size()));
  w.EndArray();
  w.Key("bearer_methods_supported");
  w.StartArray();
  w.String("header");
  w.EndArray();
  w.Key("resource_signing_alg_values_supported");
  w.StartArray();
  w.String("EdDSA");
  w.EndArray();
  w.Key("resource_name");
  w.String("fleetmcp");
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize());
}

bool ProtectedResource::is_metadata_path(std::string_view path) const {
  return path == kWellKnown || path == metadata_path_;
}

std::string ProtectedResource::challenge() const {
  const std::string scope = issuers_.empty() ? std::string(kScopeCallReadOnly) : issuers_.front().their_scope(kScopeCallReadOnly);
  return "Bearer resource_metadata=" + quoted_string(metadata_url_) + ", scope=" + quoted_string(scope);
}

std::string ProtectedResource::step_up(const AgentToken& agent, std::string_view description,
                                       std::string_view required) const {
  const auto issuer = std::find_if(issuers_.begin(), issuers_.end(), [&](const auto& i) { return i.issuer == agent.iss; });
  const auto named = [&](std::string_view ours) {
    return issuer == issuers_.end() ? std::string(ours) : issuer->their_scope(ours);
  };
  std::vector<std::string> needed;
  for (const auto& held : agent.scopes) add_once(needed, named(held));
  add_once(needed, named(required));
  std::string scope;
  for (const auto& s : needed) scope += (scope.empty() ? "" : " ") + s;
  return challenge("insufficient_scope", description, scope);
}

std::string ProtectedResource::challenge(std::string_view error, std::string_view description,
                                         std::string_view scope) const {
  std::string out = "Bearer error=" + quoted_string(error);
  if (!description.empty()) out += ", error_description=" + quoted_string(description);
  if (!scope.empty()) out += ", scope=" + quoted_string(scope);
  return out + ", resource_metadata=" + quoted_string(metadata_url_);
}

}  // namespace fleetmcp::http

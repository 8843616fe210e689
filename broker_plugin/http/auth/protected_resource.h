// The front as an OAuth 2.1 resource server (MCP authorization, RFC 9728): the Protected Resource
// Metadata document and the WWW-Authenticate challenges that point clients at it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "broker_plugin/http/auth/trusted_issuer.h"
#include "common/crypto/agent_token.h"

namespace fleetmcp::http {

class ProtectedResource {
 public:
  // resource_url: the canonical URI of /mcp, e.g. "http://127.0.0.1:8080/mcp".
  // The metadata lists `authorization_servers` and every trusted issuer; scopes are named as the
  // issuers name them (trusted_issuer.h), ours where none maps them.
  ProtectedResource(std::string resource_url, std::vector<std::string> authorization_servers,
                    std::vector<TrustedIssuer> issuers = {});

  std::string metadata_json() const;
  // Both the root and the path form are served.
  bool is_metadata_path(std::string_view path) const;

  // 401 without credentials: Bearer resource_metadata="…", scope="…".
  std::string challenge() const;
  // 401 with a bad token (error="invalid_token") or 403 (error="insufficient_scope", scope=…).
  std::string challenge(std::string_view error, std::string_view description, std::string_view scope) const;
  // 403 insufficient_scope for `agent`, naming every scope the call needs: those it holds and
  // `required`, in its issuer's names, so a client can ask for them all at once (step-up).
  std::string step_up(const AgentToken& agent, std::string_view description, std::string_view required) const;

 private:
  std::string resource_url_;
  std::string metadata_url_;  // "<origin>/.well-known/oauth-protected-resource/mcp" (the path form clients try first)
  std::string metadata_path_;
  std::vector<std::string> authorization_servers_;
  std::vector<TrustedIssuer> issuers_;
  std::vector<std::string> scopes_;  // scopes_supported
};

}  // namespace fleetmcp::http

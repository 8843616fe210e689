// Host header validation against DNS rebinding (issue 24, item 8). A page of evil.example whose
// name the attacker re-points at 127.0.0.1 makes the victim's browser send its requests to the
// front with "Host: evil.example[:port]"; Origin checks (origin_policy.h) cover /mcp, but /healthz
// and /metrics carry no Origin check and no token. The front therefore answers only requests
// whose Host names it: loopback names (which such a page cannot make a browser send), the listen
// address, the resource URL's host, and the names the operator lists (plugin_opt_http_allowed_hosts).
//
// The port is not compared: a front behind a port mapping (docker -p 18080:8080) is reached with
// the mapped port. Names compare case-insensitively (RFC 9110 §4.2.3).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fleetmcp::http {

class HostPolicy {
 public:
  enum class Verdict {
    kAllowed,
    kMalformed,  // not host[:port]: 400 (RFC 9112 §3.2)
    kNotOurs,    // a name this front does not serve: 421 Misdirected Request (RFC 9110 §15.5.20)
  };

  // `names`: accepted besides localhost, 127.0.0.1 and [::1]; IPv6 addresses in brackets or bare.
  explicit HostPolicy(const std::vector<std::string>& names);
  Verdict check(std::string_view host_header) const;

 private:
  std::vector<std::string> names_;  // lowercase, IPv6 in brackets
};

}  // namespace fleetmcp::http

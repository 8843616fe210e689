// Origin validation against DNS rebinding (MCP Streamable HTTP, "Security"): a request that
// carries an Origin must come from a loopback page or from an origin the operator listed.
// Requests without Origin (every non-browser client) pass; they are authenticated anyway.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fleetmcp::http {

class OriginPolicy {
 public:
  explicit OriginPolicy(std::vector<std::string> allowed) : allowed_(std::move(allowed)) {}
  bool allows(std::string_view origin) const;

 private:
  std::vector<std::string> allowed_;
};

}  // namespace fleetmcp::http

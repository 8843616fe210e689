#include "broker_plugin/http/front/origin_policy.h"

#include <algorithm>

namespace fleetmcp::http {
namespace {

// The host of "scheme://host[:port]", brackets kept for IPv6; "" if it is not of that form.
std::string_view origin_host(std::string_view origin) {
  const size_t scheme = origin.find("://");
  if (scheme == std::string_view::npos) return {};
  const std::string_view scheme_name = origin.substr(0, scheme);
  if (scheme_name != "http" && scheme_name != "https") return {};
  std::string_view rest = origin.substr(scheme + 3);
  if (rest.find('/') != std::string_view::npos || rest.find('@') != std::string_view::npos) return {};
  if (rest.starts_with("[")) {
    const size_t close = rest.find(']');
    return close == std::string_view::npos ? std::string_view{} : rest.substr(0, close + 1);
  }
  return rest.substr(0, rest.find(':'));
}

bool is_loopback_host(std::string_view host) {
  return host == "localhost" || host == "127.0.0.1" || host == "[::1]";
}

}  // namespace

bool OriginPolicy::allows(std::string_view origin) const {
  if (std::find(allowed_.begin(), allowed_.end(), origin) != allowed_.end()) return true;
  return is_loopback_host(origin_host(origin));
}

}  // namespace fleetmcp::http

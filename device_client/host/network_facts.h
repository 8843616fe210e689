// network.status (Doc 05 addendum §1.1): interfaces from /sys/class/net (MAC, MTU, operstate,
// statistics) and getifaddrs (addresses), the default gateway from /proc/net/route and
// /proc/net/ipv6_route, DNS servers from /etc/resolv.conf. Parsers are pure over text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/json.h"

namespace fleetmcp::device {

struct DefaultRoute {
  std::string gateway, interface;
};
// The lowest-metric 0.0.0.0/0 route with the gateway flag.
std::optional<DefaultRoute> parse_default_route_v4(std::string_view proc_net_route);
std::optional<DefaultRoute> parse_default_route_v6(std::string_view proc_net_ipv6_route);
// "nameserver" lines, in order, at most 16.
std::vector<std::string> parse_resolv_conf(std::string_view text);
// operstate → up/down/unknown ("dormant", "lowerlayerdown" … count as down).
std::string_view interface_state(std::string_view operstate);

// The whole network.status.get.output document. `root` prefixes /sys, /proc and /etc (tests);
// addresses come from getifaddrs only when `with_addresses` (the live system).
json::Document read_network_status(const std::string& root, bool with_addresses);

}  // namespace fleetmcp::device

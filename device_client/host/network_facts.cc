#include "device_client/host/network_facts.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <sstream>

#include "device_client/host/system_facts.h"

namespace fleetmcp::device {
namespace {

constexpr size_t kMaxInterfaces = 64, kMaxAddresses = 32;

template <typename F>
void each_line(std::string_view text, F f) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    f(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
}

std::optional<uint64_t> hex(std::string_view s) {
  uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

uint64_t counter(const std::string& dir, const char* name) {
  const auto t = read_small_file(dir + "/statistics/" + name);
  uint64_t v = 0;
  if (t) {
    const std::string_view s = trim(*t, kKernelTextBlanks);
    std::from_chars(s.data(), s.data() + s.size(), v);
  }
  return v;
}

std::string ipv6_text(std::string_view hex32) {
  in6_addr a{};
  for (size_t i = 0; i < 16; ++i) a.s6_addr[i] = static_cast<uint8_t>(hex(hex32.substr(i * 2, 2)).value_or(0));
  char buf[INET6_ADDRSTRLEN];
  return inet_ntop(AF_INET6, &a, buf, sizeof buf) ? buf : "";
}

struct Addresses {
  rapidjson::Value v4{rapidjson::kArrayType}, v6{rapidjson::kArrayType};
};

int prefix_length(const sockaddr_in6* mask) {
  int bits = 0;
  for (uint8_t b : mask->sin6_addr.s6_addr) bits += __builtin_popcount(b);
  return bits;
}

std::map<std::string, Addresses> read_addresses(json::Allocator& a) {
  std::map<std::string, Addresses> out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    Addresses& slot = out[i->ifa_name];
    char buf[INET6_ADDRSTRLEN];
    if (i->ifa_addr->sa_family == AF_INET && slot.v4.Size() < kMaxAddresses) {
      rapidjson::Value v(rapidjson::kObjectType);
      auto text = [&](const sockaddr* s) {
        return std::string(inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(s)->sin_addr, buf, sizeof buf));
      };
      v.AddMember("address", json::string_value(text(i->ifa_addr), a), a);
      if (i->ifa_netmask) v.AddMember("netmask", json::string_value(text(i->ifa_netmask), a), a);
      if ((i->ifa_flags & IFF_BROADCAST) && i->ifa_broadaddr) v.AddMember("broadcast", json::string_value(text(i->ifa_broadaddr), a), a);
      slot.v4.PushBack(v, a);
    } else if (i->ifa_addr->sa_family == AF_INET6 && slot.v6.Size() < kMaxAddresses) {
      const auto* s6 = reinterpret_cast<const sockaddr_in6*>(i->ifa_addr);
      rapidjson::Value v(rapidjson::kObjectType);
      v.AddMember("address", json::string_value(inet_ntop(AF_INET6, &s6->sin6_addr, buf, sizeof buf), a), a);
      if (i->ifa_netmask) v.AddMember("prefix_length", prefix_length(reinterpret_cast<const sockaddr_in6*>(i->ifa_netmask)), a);
      const char* scope = IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr) ? "host" : IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr) ? "link" : "global";
      v.AddMember("scope", rapidjson::StringRef(scope), a);
      slot.v6.PushBack(v, a);
    }
  }
  freeifaddrs(list);
  return out;
}

bool is_mac(std::string_view s) {
  if (s.size() != 17) return false;
  for (size_t i = 0; i < 17; ++i) {
    const char c = s[i];
    if (i % 3 == 2 ? c != ':' : !std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

std::optional<DefaultRoute> parse_default_route_v4(std::string_view text) {
  std::optional<DefaultRoute> best;
  uint64_t best_metric = UINT64_MAX;
  each_line(text, [&](std::string_view line) {
    const auto f = split_words(line);
    // Iface Destination Gateway Flags RefCnt Use Metric Mask …
    if (f.size() < 8 || f[0] == "Iface" || f[1] != "00000000" || f[7] != "00000000") return;
    const auto flags = hex(f[3]), gw = hex(f[2]);
    uint64_t metric = 0;
    std::from_chars(f[6].data(), f[6].data() + f[6].size(), metric);
    if (!flags || !gw || !(*flags & 0x2) || metric >= best_metric) return;  // RTF_GATEWAY
    in_addr addr{static_cast<in_addr_t>(*gw)};  // the file holds the address in network byte order
    char buf[INET_ADDRSTRLEN];
    best = DefaultRoute{inet_ntop(AF_INET, &addr, buf, sizeof buf), std::string(f[0])};
    best_metric = metric;
  });
  return best;
}

std::optional<DefaultRoute> parse_default_route_v6(std::string_view text) {
  std::optional<DefaultRoute> best;
  uint64_t best_metric = UINT64_MAX;
  each_line(text, [&](std::string_view line) {
    const auto f = split_words(line);
    // dest dest_len src src_len next_hop metric refcnt use flags iface
    if (f.size() < 10 || f[0] != std::string(32, '0') || f[1] != "00" || f[4] == std::string(32, '0')) return;
    const auto metric = hex(f[5]);
    if (!metric || *metric >= best_metric || f[9] == "lo") return;
    best = DefaultRoute{ipv6_text(f[4]), std::string(f[9])};
    best_metric = *metric;
  });
  return best;
}

std::vector<std::string> parse_resolv_conf(std::string_view text) {
  std::vector<std::string> out;
  each_line(text, [&](std::string_view line) {
    const auto f = split_words(line);
    if (f.size() >= 2 && f[0] == "nameserver" && out.size() < 16 && f[1].size() <= 45) out.emplace_back(f[1]);
  });
  return out;
}

std::string_view interface_state(std::string_view operstate) {
  if (operstate == "up") return "up";
  if (operstate == "unknown" || operstate.empty()) return "unknown";
  return "down";
}

json::Document read_network_status(const std::string& root, bool with_addresses) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  auto addresses = with_addresses ? read_addresses(a) : std::map<std::string, Addresses>();
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(root + "/sys/class/net", ec)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  if (names.size() > kMaxInterfaces) names.resize(kMaxInterfaces);

  rapidjson::Value interfaces(rapidjson::kArrayType);
  for (const auto& name : names) {
    if (name.size() > 16) continue;
    const std::string dir = root + "/sys/class/net/" + name;
    rapidjson::Value i(rapidjson::kObjectType);
    i.AddMember("name", json::string_value(name, a), a);
    std::string mac(trim(read_small_file(dir + "/address").value_or(""), kKernelTextBlanks));
    if (!is_mac(mac)) mac = "00:00:00:00:00:00";  // tunnels and the like have none
    i.AddMember("mac_address", json::string_value(mac, a), a);
    const std::string mtu(trim(read_small_file(dir + "/mtu").value_or("0"), kKernelTextBlanks));
    int64_t mtu_value = 0;
    std::from_chars(mtu.data(), mtu.data() + mtu.size(), mtu_value);
    i.AddMember("mtu", std::clamp<int64_t>(mtu_value, 0, 1 << 20), a);
    i.AddMember("state", json::string_value(interface_state(trim(read_small_file(dir + "/operstate").value_or(""), kKernelTextBlanks)), a), a);
    if (auto it = addresses.find(name); it != addresses.end()) {
      i.AddMember("ipv4_addresses", it->second.v4, a);
      i.AddMember("ipv6_addresses", it->second.v6, a);
    } else {
      i.AddMember("ipv4_addresses", rapidjson::Value(rapidjson::kArrayType), a);
      i.AddMember("ipv6_addresses", rapidjson::Value(rapidjson::kArrayType), a);
    }
    rapidjson::Value stats(rapidjson::kObjectType);
    const std::pair<const char*, const char*> counters[] = {
        {"bytes_sent", "tx_bytes"},   {"bytes_recv", "rx_bytes"},  {"packets_sent", "tx_packets"},
        {"packets_recv", "rx_packets"}, {"errors_in", "rx_errors"}, {"errors_out", "tx_errors"},
        {"drops_in", "rx_dropped"},   {"drops_out", "tx_dropped"}};
    for (const auto& [key, file] : counters) stats.AddMember(rapidjson::StringRef(key), counter(dir, file), a);
    i.AddMember("statistics", stats, a);
    interfaces.PushBack(i, a);
  }
  d.AddMember("interfaces", interfaces, a);

  rapidjson::Value gateway(rapidjson::kObjectType);
  if (auto v4 = parse_default_route_v4(read_small_file(root + "/proc/net/route").value_or(""))) {
    gateway.AddMember("ipv4", json::string_value(v4->gateway, a), a);
    gateway.AddMember("interface", json::string_value(v4->interface.substr(0, 16), a), a);
  }
  if (auto v6 = parse_default_route_v6(read_small_file(root + "/proc/net/ipv6_route").value_or(""))) {
    gateway.AddMember("ipv6", json::string_value(v6->gateway, a), a);
    if (!gateway.HasMember("interface")) gateway.AddMember("interface", json::string_value(v6->interface.substr(0, 16), a), a);
  }
  d.AddMember("default_gateway", gateway, a);
  rapidjson::Value dns(rapidjson::kArrayType);
  for (const auto& s : parse_resolv_conf(read_small_file(root + "/etc/resolv.conf").value_or(""))) dns.PushBack(json::string_value(s, a), a);
  d.AddMember("dns_servers", dns, a);
  return d;
}

}  // namespace fleetmcp::device

#include "device_client/host/io_rates.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <thread>
#include <vector>

#include "device_client/host/system_facts.h"

namespace fleetmcp::device {
namespace {

bool name_in_grammar(std::string_view name, size_t max, std::string_view extra) {
  if (name.empty() || name.size() > max) return false;
  return std::all_of(name.begin(), name.end(), [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || extra.find(c) != std::string_view::npos;
  });
}

// The whitespace-separated numbers of `fields`, as many as parse.
std::vector<uint64_t> numbers(std::string_view fields) {
  std::vector<uint64_t> out;
  while (true) {
    const size_t start = fields.find_first_not_of(" \t");
    if (start == std::string_view::npos) break;
    fields.remove_prefix(start);
    uint64_t v = 0;
    const auto [end, ec] = std::from_chars(fields.data(), fields.data() + fields.size(), v);
    if (ec != std::errc()) break;
    out.push_back(v);
    fields.remove_prefix(static_cast<size_t>(end - fields.data()));
  }
  return out;
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> out;
  while (true) {
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string_view::npos) return out;
    line.remove_prefix(start);
    const size_t end = std::min(line.find_first_of(" \t"), line.size());
    out.push_back(line.substr(0, end));
    line.remove_prefix(end);
  }
}

std::string_view next_line(std::string_view& text) {
  const size_t nl = text.find('\n');
  const std::string_view line = text.substr(0, nl);
  text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  return line;
}

uint64_t delta(uint64_t before, uint64_t after) { return after >= before ? after - before : 0; }

double per_second(uint64_t count, std::chrono::milliseconds interval) {
  return interval.count() > 0 ? static_cast<double>(count) * 1000.0 / static_cast<double>(interval.count()) : 0.0;
}

// One decimal place for rates, three for percentages and megabytes: what a reader compares.
double rounded(double v, double scale) { return std::round(v * scale) / scale; }

double percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : std::min(100.0, static_cast<double>(part) * 100.0 / static_cast<double>(whole));
}

// Calls f(name, before, after) for each name in both readings, at most kMaxIoEntries of them.
template <typename Counters, typename F>
void each_in_both(const std::map<std::string, Counters>& before, const std::map<std::string, Counters>& after, F f) {
  size_t taken = 0;
  for (const auto& [name, now] : after) {
    const auto was = before.find(name);
    if (was == before.end()) continue;
    if (taken++ == kMaxIoEntries) return;
    f(name, was->second, now);
  }
}

}  // namespace

std::map<std::string, InterfaceCounters> parse_proc_net_dev(std::string_view text) {
  std::map<std::string, InterfaceCounters> out;
  while (!text.empty()) {
    const std::string_view line = next_line(text);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;  // the two header lines have '|', not ':'
    std::string_view name = line.substr(0, colon);
    name.remove_prefix(std::min(name.find_first_not_of(' '), name.size()));
    const std::vector<uint64_t> n = numbers(line.substr(colon + 1));
    if (n.size() < 16 || !name_in_grammar(name, 15, "_.@-")) continue;
    out[std::string(name)] = InterfaceCounters{n[0], n[1], n[2], n[3], n[8], n[9], n[10], n[11]};
  }
  return out;
}

std::map<std::string, DiskCounters> parse_proc_diskstats(std::string_view text) {
  std::map<std::string, DiskCounters> out;
  while (!text.empty()) {
    // "major minor name reads merged sectors ms writes merged sectors ms in_flight io_ms weighted_ms …"
    const std::vector<std::string_view> w = words(next_line(text));
    if (w.size() < 14 || !name_in_grammar(w[2], 32, "_.-")) continue;
    std::vector<uint64_t> n;
    for (size_t i = 3; i < 14; ++i) {
      uint64_t v = 0;
      const auto [end, ec] = std::from_chars(w[i].data(), w[i].data() + w[i].size(), v);
      if (ec != std::errc() || end != w[i].data() + w[i].size()) break;
      n.push_back(v);
    }
    if (n.size() < 11) continue;
    out[std::string(w[2])] = DiskCounters{n[0], n[2], n[4], n[6], n[8], n[9]};
  }
  return out;
}

bool reported_block_device(std::string_view name, const std::set<std::string>& whole_disks) {
  if (name.starts_with("loop") || name.starts_with("ram")) return false;
  return whole_disks.empty() || whole_disks.count(std::string(name)) > 0;
}

IoReading read_io(const std::string& root) {
  IoReading r;
  r.interfaces = parse_proc_net_dev(read_small_file(root + "/proc/net/dev").value_or(""));
  std::set<std::string> whole_disks;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root + "/sys/block", ec)) {
    whole_disks.insert(entry.path().filename().string());
  }
  for (auto& [name, counters] : parse_proc_diskstats(read_small_file(root + "/proc/diskstats").value_or(""))) {
    if (reported_block_device(name, whole_disks)) r.disks.emplace(name, counters);
  }
  for (const auto& [name, counters] : r.interfaces) {
    // -1 or EINVAL for links without a speed (loopback, Wi-Fi, a cable that is out).
    const std::string text = read_small_file(root + "/sys/class/net/" + name + "/speed").value_or("");
    uint64_t mbps = 0;
    const auto [end, parse] = std::from_chars(text.data(), text.data() + text.size(), mbps);
    if (parse == std::errc() && mbps > 0) r.link_mbps.emplace(name, mbps);
  }
  return r;
}

std::shared_ptr<const IoRates> IoRateSampler::rates() {
  std::lock_guard lock(mutex_);
  const auto now = std::chrono::steady_clock::now();
  if (last_ != nullptr && now - last_at_ < max_age_) return last_;
  auto pair = std::make_shared<IoRates>();
  pair->before = read_io(root_);
  std::this_thread::sleep_for(interval_);
  // The time that really passed between the readings, which a busy device stretches.
  pair->elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - now);
  pair->after = read_io(root_);
  last_ = std::move(pair);
  last_at_ = std::chrono::steady_clock::now();
  return last_;
}

json::Value network_rates_json(const IoReading& before, const IoReading& after, std::chrono::milliseconds interval,
                               json::Allocator& a) {
  json::Value interfaces(rapidjson::kObjectType);
  double up = 0, down = 0;
  each_in_both(before.interfaces, after.interfaces, [&](const std::string& name, const InterfaceCounters& then,
                                                       const InterfaceCounters& now) {
    const double sent = per_second(delta(then.tx_bytes, now.tx_bytes), interval);
    const double received = per_second(delta(then.rx_bytes, now.rx_bytes), interval);
    const uint64_t packets = delta(then.rx_packets, now.rx_packets) + delta(then.tx_packets, now.tx_packets);
    const uint64_t errors = delta(then.rx_errors, now.rx_errors) + delta(then.tx_errors, now.tx_errors);
    const uint64_t dropped = delta(then.rx_dropped, now.rx_dropped) + delta(then.tx_dropped, now.tx_dropped);
    json::Value v(rapidjson::kObjectType);
    v.AddMember("bytes_sent_per_sec", rounded(sent, 10), a);
    v.AddMember("bytes_recv_per_sec", rounded(received, 10), a);
    v.AddMember("packets_sent_per_sec", rounded(per_second(delta(then.tx_packets, now.tx_packets), interval), 10), a);
    v.AddMember("packets_recv_per_sec", rounded(per_second(delta(then.rx_packets, now.rx_packets), interval), 10), a);
    // Of the packets the interval saw, how many failed or were dropped (a failed one is no packet).
    v.AddMember("error_rate_percent", rounded(percent(errors, packets + errors), 1000), a);
    v.AddMember("drop_rate_percent", rounded(percent(dropped, packets + dropped), 1000), a);
    if (const auto speed = after.link_mbps.find(name); speed != after.link_mbps.end()) {
      const double busiest_bits = std::max(sent, received) * 8.0;
      v.AddMember("utilization_percent", rounded(std::min(100.0, busiest_bits * 100.0 / (speed->second * 1e6)), 1000), a);
    }
    interfaces.AddMember(json::string_value(name, a), v, a);
    if (name != "lo") {  // loopback never leaves the device
      up += sent;
      down += received;
    }
  });
  json::Value total(rapidjson::kObjectType);
  total.AddMember("up", rounded(up * 8.0 / 1e6, 1000), a);
  total.AddMember("down", rounded(down * 8.0 / 1e6, 1000), a);
  json::Value out(rapidjson::kObjectType);
  out.AddMember("interval_ms", static_cast<int64_t>(interval.count()), a);
  out.AddMember("interfaces", interfaces, a);
  out.AddMember("total_bandwidth_mbps", total, a);
  return out;
}

json::Value disk_io_rates_json(const IoReading& before, const IoReading& after, std::chrono::milliseconds interval,
                               json::Allocator& a) {
  json::Value devices(rapidjson::kObjectType);
  double read_total = 0, write_total = 0;
  each_in_both(before.disks, after.disks, [&](const std::string& name, const DiskCounters& then, const DiskCounters& now) {
    constexpr uint64_t kSector = 512;
    const double read = per_second(delta(then.sectors_read, now.sectors_read) * kSector, interval);
    const double written = per_second(delta(then.sectors_written, now.sectors_written) * kSector, interval);
    json::Value v(rapidjson::kObjectType);
    v.AddMember("read_bytes_per_sec", rounded(read, 10), a);
    v.AddMember("write_bytes_per_sec", rounded(written, 10), a);
    v.AddMember("read_iops", rounded(per_second(delta(then.reads, now.reads), interval), 10), a);
    v.AddMember("write_iops", rounded(per_second(delta(then.writes, now.writes), interval), 10), a);
    v.AddMember("busy_percent",
                rounded(percent(delta(then.io_ms, now.io_ms), static_cast<uint64_t>(std::max<int64_t>(interval.count(), 0))), 10),
                a);
    v.AddMember("queue_depth", now.in_flight, a);
    devices.AddMember(json::string_value(name, a), v, a);
    read_total += read;
    write_total += written;
  });
  json::Value total(rapidjson::kObjectType);
  total.AddMember("read_mb_per_sec", rounded(read_total / 1e6, 1000), a);
  total.AddMember("write_mb_per_sec", rounded(write_total / 1e6, 1000), a);
  json::Value out(rapidjson::kObjectType);
  out.AddMember("interval_ms", static_cast<int64_t>(interval.count()), a);
  out.AddMember("devices", devices, a);
  out.AddMember("total", total, a);
  return out;
}

}  // namespace fleetmcp::device

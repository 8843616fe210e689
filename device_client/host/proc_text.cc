#include "device_client/host/proc_text.h"

#include <charconv>
#include <cmath>
#include <string>

namespace fleetmcp::device {
namespace {

// Splits off the next whitespace-separated word of `rest`.
std::string_view next_word(std::string_view& rest) {
  const auto start = rest.find_first_not_of(" \t");
  if (start == std::string_view::npos) {
    rest = {};
    return {};
  }
  rest.remove_prefix(start);
  const auto end = rest.find_first_of(" \t");
  const std::string_view word = rest.substr(0, end);
  rest.remove_prefix(end == std::string_view::npos ? rest.size() : end);
  return word;
}

std::string_view next_line(std::string_view& text) {
  const auto nl = text.find('\n');
  const std::string_view line = text.substr(0, nl);
  text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  return line;
}

std::optional<uint64_t> to_u64(std::string_view s) {
  uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::optional<double> to_double(std::string_view s) {
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty() || !std::isfinite(v) || v < 0) {
    return std::nullopt;
  }
  return v;
}

// "cpu  4705 356 584 3699 23 23 0 0 0 0" -> times. Needs at least user..idle (4 fields).
std::optional<CpuTimes> parse_cpu_fields(std::string_view rest) {
  uint64_t f[8] = {};
  int n = 0;
  for (std::string_view w = next_word(rest); !w.empty() && n < 8; w = next_word(rest)) {
    const auto v = to_u64(w);
    if (!v) return std::nullopt;
    f[n++] = *v;
  }
  if (n < 4) return std::nullopt;
  CpuTimes t;
  t.idle = f[3] + f[4];                                     // idle + iowait
  t.total = f[0] + f[1] + f[2] + f[3] + f[4] + f[5] + f[6] + f[7];  // … + irq + softirq + steal
  return t;
}

bool is_core_label(std::string_view label) {
  if (label.size() < 4 || label.substr(0, 3) != "cpu") return false;
  for (char c : label.substr(3)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

}  // namespace

std::optional<ProcStat> parse_proc_stat(std::string_view text) {
  ProcStat stat;
  bool have_all = false;
  while (!text.empty()) {
    std::string_view line = next_line(text);
    const std::string_view label = next_word(line);
    if (label == "cpu") {
      const auto t = parse_cpu_fields(line);
      if (!t) return std::nullopt;
      stat.all = *t;
      have_all = true;
    } else if (is_core_label(label)) {
      const auto t = parse_cpu_fields(line);
      if (!t) return std::nullopt;
      stat.cores.push_back(*t);
    }
  }
  if (!have_all || stat.cores.empty()) return std::nullopt;
  return stat;
}

double cpu_usage_pct(const CpuTimes& before, const CpuTimes& after) {
  // Counters only grow; a smaller value means a wrap or a hot-unplugged core: report 0.
  if (after.total <= before.total || after.idle < before.idle) return 0;
  const double total = static_cast<double>(after.total - before.total);
  const double idle = static_cast<double>(after.idle - before.idle);
  const double pct = 100.0 * (total - idle) / total;
  return pct < 0 ? 0 : (pct > 100 ? 100 : pct);
}

std::optional<MemInfo> parse_meminfo(std::string_view text) {
  MemInfo m;
  bool total = false, available = false;
  while (!text.empty()) {
    std::string_view line = next_line(text);
    const std::string_view key = next_word(line);
    const auto kib = to_u64(next_word(line));
    if (!kib) continue;
    const uint64_t bytes = *kib * 1024;
    if (key == "MemTotal:") m.total = bytes, total = true;
    else if (key == "MemAvailable:") m.available = bytes, available = true;
    else if (key == "SwapTotal:") m.swap_total = bytes;
    else if (key == "SwapFree:") m.swap_free = bytes;
  }
  // Kernels before 3.14 have no MemAvailable; sysinfo then reports nothing better, and neither do we.
  if (!total || !available) return std::nullopt;
  return m;
}

std::optional<LoadAvg> parse_loadavg(std::string_view text) {
  std::string_view rest = next_line(text);
  const auto one = to_double(next_word(rest));
  const auto five = to_double(next_word(rest));
  const auto fifteen = to_double(next_word(rest));
  if (!one || !five || !fifteen) return std::nullopt;
  return LoadAvg{*one, *five, *fifteen};
}

std::optional<int64_t> parse_uptime_s(std::string_view text) {
  std::string_view rest = next_line(text);
  const auto secs = to_double(next_word(rest));
  if (!secs || *secs > 9.0e15) return std::nullopt;
  return static_cast<int64_t>(*secs);
}

}  // namespace fleetmcp::device

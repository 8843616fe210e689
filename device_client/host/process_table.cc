#include "device_client/host/process_table.h"

#include <fnmatch.h>
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <unordered_map>

#include "device_client/base/result_budget.h"
#include "device_client/host/system_facts.h"
#include "device_client/host/proc_text.h"

namespace fleetmcp::device {
namespace {

constexpr size_t kMaxCmdlineArgs = 64, kMaxArgLength = 512;

template <typename T>
bool number(std::string_view s, T& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

std::string line_field(std::string_view text, std::string_view key) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (line.substr(0, key.size()) == key && line.size() > key.size() && line[key.size()] == ':') {
      return std::string(trim(line.substr(key.size() + 1), kKernelTextBlanks));
    }
  }
  return {};
}

std::string user_name(uid_t uid) {
  passwd pw{};
  passwd* found = nullptr;
  char buf[1024];
  if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found != nullptr) return std::string(found->pw_name).substr(0, 64);
  return std::to_string(uid);
}

std::string link_target(const std::string& path) {
  std::error_code ec;
  const auto t = std::filesystem::read_symlink(path, ec);
  return ec ? std::string() : t.string().substr(0, 4096);
}

double round1(double v) { return std::round(v * 10.0) / 10.0; }

std::optional<uint64_t> io_field(std::string_view io, std::string_view key) {
  const std::string v = line_field(io, key);
  uint64_t n = 0;
  if (v.empty() || !number(v, n)) return std::nullopt;
  return n;
}

}  // namespace

std::optional<ProcStatFields> parse_pid_stat(std::string_view text) {
  const auto open = text.find('('), close = text.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return std::nullopt;
  ProcStatFields f;
  f.comm = std::string(text.substr(open + 1, close - open - 1)).substr(0, 64);
  std::vector<std::string_view> rest;  // from field 3 (state) on
  std::string_view tail = text.substr(close + 1);
  while (!tail.empty()) {
    while (!tail.empty() && (tail.front() == ' ' || tail.front() == '\n')) tail.remove_prefix(1);
    const auto sp = tail.find_first_of(" \n");
    if (!tail.empty()) rest.push_back(tail.substr(0, sp));
    tail = sp == std::string_view::npos ? std::string_view() : tail.substr(sp);
  }
  // proc(5) numbering: state is field 3, so field n is rest[n - 3].
  if (rest.size() < 22 || rest[0].size() != 1) return std::nullopt;
  f.state = rest[0][0];
  const bool ok = number(rest[1], f.ppid) && number(rest[11], f.utime) && number(rest[12], f.stime) &&
                  number(rest[16], f.nice) && number(rest[17], f.num_threads) && number(rest[19], f.starttime) &&
                  number(rest[20], f.vsize) && number(rest[21], f.rss_pages);
  if (!ok) return std::nullopt;
  return f;
}

std::string_view process_status(char state) {
  switch (state) {
    case 'R': return "running";
    case 'D': return "disk-sleep";
    case 'T': case 't': return "stopped";
    case 'Z': case 'X': return "zombie";
    case 'I': return "idle";
    default: return "sleeping";
  }
}

ProcessContext read_process_context(std::string proc_root) {
  ProcessContext c;
  c.proc_root = std::move(proc_root);
  const long ticks = sysconf(_SC_CLK_TCK);
  c.ticks_per_second = ticks > 0 ? static_cast<double>(ticks) : 100.0;
  const long page = sysconf(_SC_PAGESIZE);
  c.page_size = page > 0 ? static_cast<uint64_t>(page) : 4096;
  const auto stat = read_small_file(c.proc_root + "/stat").value_or("");
  const auto at = stat.find("\nbtime ");
  if (at != std::string::npos) {
    const auto end = stat.find('\n', at + 7);
    number(std::string_view(stat).substr(at + 7, end - at - 7), c.boot_time_s);
  }
  const std::string uptime = read_small_file(c.proc_root + "/uptime").value_or("0");
  c.uptime_s = std::strtod(uptime.c_str(), nullptr);
  if (auto mem = parse_meminfo(read_small_file(c.proc_root + "/meminfo").value_or(""))) c.memory_total = mem->total;
  return c;
}

std::optional<ProcessInfo> read_process(const ProcessContext& ctx, int64_t pid, bool details) {
  const std::string dir = ctx.proc_root + "/" + std::to_string(pid);
  const auto stat_text = read_small_file(dir + "/stat");
  if (!stat_text) return std::nullopt;
  const auto f = parse_pid_stat(*stat_text);
  if (!f) return std::nullopt;
  ProcessInfo p;
  p.pid = pid;
  p.ppid = f->ppid;
  p.nice = std::clamp<int64_t>(f->nice, -20, 19);
  p.num_threads = std::max<int64_t>(1, f->num_threads);
  p.name = f->comm;
  p.status = std::string(process_status(f->state));
  const double start_s = static_cast<double>(f->starttime) / ctx.ticks_per_second;
  p.create_time = static_cast<double>(ctx.boot_time_s) + start_s;
  p.cpu_user_s = static_cast<double>(f->utime) / ctx.ticks_per_second;
  p.cpu_system_s = static_cast<double>(f->stime) / ctx.ticks_per_second;
  const double alive_s = ctx.uptime_s - start_s;
  p.cpu_percent = alive_s > 0 ? round1((p.cpu_user_s + p.cpu_system_s) / alive_s * 100.0) : 0.0;
  p.memory_rss = f->rss_pages * ctx.page_size;
  p.memory_vms = f->vsize;
  p.memory_percent = ctx.memory_total > 0
                         ? std::min(100.0, round1(static_cast<double>(p.memory_rss) * 100.0 / static_cast<double>(ctx.memory_total)))
                         : 0.0;
  const std::string status = read_small_file(dir + "/status").value_or("");
  const std::string uid = line_field(status, "Uid");
  uid_t real_uid = 0;
  if (!uid.empty() && number(std::string_view(uid).substr(0, uid.find_first_of(" \t")), real_uid)) p.username = user_name(real_uid);
  const std::string cmdline = read_small_file(dir + "/cmdline").value_or("");
  for (size_t at = 0; at < cmdline.size() && p.cmdline.size() < kMaxCmdlineArgs;) {
    const size_t end = std::min(cmdline.find('\0', at), cmdline.size());
    p.cmdline.push_back(cmdline.substr(at, std::min(end - at, kMaxArgLength)));
    at = end + 1;
  }
  if (details) {
    p.exe = link_target(dir + "/exe");
    p.cwd = link_target(dir + "/cwd");
    if (auto io = read_small_file(dir + "/io")) {
      p.read_count = io_field(*io, "syscr");
      p.write_count = io_field(*io, "syscw");
      p.read_bytes = io_field(*io, "read_bytes");
      p.write_bytes = io_field(*io, "write_bytes");
    }
    std::error_code ec;
    int64_t fds = 0;
    for (auto it = std::filesystem::directory_iterator(dir + "/fd", ec); !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) ++fds;
    if (!ec) p.num_fds = fds;
  }
  return p;
}

std::vector<ProcessInfo> read_all_processes(const ProcessContext& ctx) {
  std::vector<ProcessInfo> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(ctx.proc_root, ec)) {
    int64_t pid = 0;
    const std::string name = e.path().filename().string();
    if (!number(name, pid) || pid <= 0) continue;
    if (auto p = read_process(ctx, pid, false)) out.push_back(std::move(*p));
  }
  return out;
}

void rate_cpu_over_window(std::vector<ProcessInfo>& later, const std::vector<ProcessInfo>& earlier, double interval_s) {
  if (interval_s <= 0) return;
  std::unordered_map<int64_t, const ProcessInfo*> before;
  for (const auto& p : earlier) before.emplace(p.pid, &p);
  for (auto& p : later) {
    const auto it = before.find(p.pid);
    if (it == before.end() || it->second->create_time != p.create_time) continue;  // new, or a reused pid
    const double used_s = (p.cpu_user_s + p.cpu_system_s) - (it->second->cpu_user_s + it->second->cpu_system_s);
    p.cpu_percent = round1(std::max(0.0, used_s) / interval_s * 100.0);
  }
}

ProcessQuery process_query_from(const json::Value& args) {
  ProcessQuery q;
  if (const auto it = args.FindMember("filter"); it != args.MemberEnd()) {
    const json::Value& f = it->value;
    if (auto v = json::get_string(f, "username")) q.username = std::string(*v);
    if (auto v = json::get_string(f, "name_pattern")) q.name_pattern = std::string(*v);
    if (f.HasMember("min_cpu_percent")) q.min_cpu_percent = f["min_cpu_percent"].GetDouble();
    if (f.HasMember("min_memory_mb")) q.min_memory_mb = f["min_memory_mb"].GetDouble();
    if (f.HasMember("status")) {
      for (const auto& s : f["status"].GetArray()) q.statuses.emplace_back(s.GetString());
    }
  }
  q.sort_by = std::string(json::get_string(args, "sort_by").value_or("pid"));
  q.descending = json::get_string(args, "sort_order") == std::optional<std::string_view>("desc");
  if (args.HasMember("limit")) q.limit = args["limit"].GetInt();
  if (args.HasMember("offset")) q.offset = args["offset"].GetInt();
  return q;
}

namespace {

bool accepted(const ProcessQuery& q, const ProcessInfo& p) {
  if (q.username && p.username != *q.username) return false;
  if (q.name_pattern && fnmatch(q.name_pattern->c_str(), p.name.c_str(), 0) != 0) return false;
  if (q.min_cpu_percent && p.cpu_percent < *q.min_cpu_percent) return false;
  if (q.min_memory_mb && static_cast<double>(p.memory_rss) < *q.min_memory_mb * 1024 * 1024) return false;
  if (!q.statuses.empty() && std::find(q.statuses.begin(), q.statuses.end(), p.status) == q.statuses.end()) return false;
  return true;
}

// Strict weak order on the sort key, pid as the tie-breaker so pages are stable between calls.
bool before(const ProcessQuery& q, const ProcessInfo& a, const ProcessInfo& b) {
  auto key_less = [&](const ProcessInfo& x, const ProcessInfo& y) {
    if (q.sort_by == "name") return x.name < y.name;
    if (q.sort_by == "cpu_percent") return x.cpu_percent < y.cpu_percent;
    if (q.sort_by == "memory_percent") return x.memory_percent < y.memory_percent;
    if (q.sort_by == "memory_rss") return x.memory_rss < y.memory_rss;
    if (q.sort_by == "create_time") return x.create_time < y.create_time;
    return false;
  };
  if (key_less(a, b)) return !q.descending;
  if (key_less(b, a)) return q.descending;
  return q.descending ? a.pid > b.pid : a.pid < b.pid;
}

void add_summary(rapidjson::Value& v, const ProcessInfo& p, json::Allocator& a) {
  v.AddMember("pid", p.pid, a);
  v.AddMember("name", json::string_value(p.name, a), a);
  rapidjson::Value args(rapidjson::kArrayType);
  for (const auto& s : p.cmdline) args.PushBack(json::string_value(s, a), a);
  v.AddMember("cmdline", args, a);
  if (!p.exe.empty()) v.AddMember("exe", json::string_value(p.exe, a), a);
  if (!p.cwd.empty()) v.AddMember("cwd", json::string_value(p.cwd, a), a);
  v.AddMember("status", json::string_value(p.status, a), a);
  if (!p.username.empty()) v.AddMember("username", json::string_value(p.username, a), a);
  v.AddMember("create_time", p.create_time, a);
  v.AddMember("cpu_percent", p.cpu_percent, a);
  v.AddMember("memory_percent", p.memory_percent, a);
  v.AddMember("memory_rss", p.memory_rss, a);
  v.AddMember("memory_vms", p.memory_vms, a);
  v.AddMember("num_threads", p.num_threads, a);
  v.AddMember("ppid", p.ppid, a);
  v.AddMember("nice", p.nice, a);
}

}  // namespace

json::Document process_list_json(std::vector<ProcessInfo> all, const ProcessQuery& q, int64_t cpu_interval_ms) {
  std::erase_if(all, [&](const ProcessInfo& p) { return !accepted(q, p); });
  std::sort(all.begin(), all.end(), [&](const ProcessInfo& a, const ProcessInfo& b) { return before(q, a, b); });
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  rapidjson::Value list(rapidjson::kArrayType);
  const size_t first = std::min(all.size(), static_cast<size_t>(q.offset));
  size_t last = std::min(all.size(), first + static_cast<size_t>(q.limit));
  // Any local user can start 500 processes with 32 KiB command lines: the page ends where the
  // cmd_ack's budget does, and has_more sends the caller on with offset (issue 33 item 3).
  ResultBudget budget;
  for (size_t i = first; i < last; ++i) {
    rapidjson::Value v(rapidjson::kObjectType);
    add_summary(v, all[i], a);
    if (!budget.take(v)) {
      last = i;
      break;
    }
    list.PushBack(v, a);
  }
  d.AddMember("processes", list, a);
  d.AddMember("total_count", static_cast<uint64_t>(all.size()), a);
  d.AddMember("returned_count", static_cast<uint64_t>(last - first), a);
  d.AddMember("has_more", last < all.size(), a);
  d.AddMember("cpu_interval_ms", cpu_interval_ms, a);
  return d;
}

json::Document process_detail_json(const ProcessInfo& p) {
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  add_summary(d, p, a);
  if (p.read_count || p.read_bytes) {
    rapidjson::Value io(rapidjson::kObjectType);
    if (p.read_count) io.AddMember("read_count", *p.read_count, a);
    if (p.write_count) io.AddMember("write_count", *p.write_count, a);
    if (p.read_bytes) io.AddMember("read_bytes", *p.read_bytes, a);
    if (p.write_bytes) io.AddMember("write_bytes", *p.write_bytes, a);
    d.AddMember("io_counters", io, a);
  }
  rapidjson::Value times(rapidjson::kObjectType);
  times.AddMember("user", p.cpu_user_s, a);
  times.AddMember("system", p.cpu_system_s, a);
  d.AddMember("cpu_times", times, a);
  if (p.num_fds) d.AddMember("num_fds", *p.num_fds, a);
  return d;
}

}  // namespace fleetmcp::device

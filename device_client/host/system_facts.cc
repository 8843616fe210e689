#include "device_client/host/system_facts.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <filesystem>

#include "device_client/host/proc_text.h"

extern char** environ;

namespace fleetmcp::device {
namespace {

std::string unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return std::string(v);
}

std::optional<std::string> line_value(std::string_view text, std::string_view key, char sep) {
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    const auto at = line.find(sep);
    if (at != std::string_view::npos && trim(line.substr(0, at), kKernelTextBlanks) == key) {
      return std::string(trim(line.substr(at + 1), kKernelTextBlanks));
    }
  }
  return std::nullopt;
}

std::optional<double> millidegrees(const std::string& path) {
  const auto text = read_small_file(path);
  if (!text) return std::nullopt;
  const std::string_view t = trim(*text, kKernelTextBlanks);
  long v = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return static_cast<double>(v) / 1000.0;
}

}  // namespace

std::optional<std::string> read_small_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string out;
  char buf[4096];
  for (ssize_t n; out.size() < 65536 && (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

OsRelease parse_os_release(std::string_view text) {
  OsRelease r;
  r.name = unquote(line_value(text, "NAME", '=').value_or("Linux"));
  r.version = unquote(line_value(text, "VERSION_ID", '=').value_or(line_value(text, "VERSION", '=').value_or("")));
  if (r.version.empty()) r.version = "unknown";
  return r;
}

std::string read_model(const std::string& root) {
  for (const char* path : {"/proc/device-tree/model", "/sys/firmware/devicetree/base/model", "/sys/class/dmi/id/product_name"}) {
    if (auto t = read_small_file(root + path); t && !trim(*t, kKernelTextBlanks).empty()) return std::string(trim(*t, kKernelTextBlanks));
  }
  if (auto cpuinfo = read_small_file(root + "/proc/cpuinfo")) {
    if (auto m = line_value(*cpuinfo, "Model", ':')) return *m;
    if (auto m = line_value(*cpuinfo, "model name", ':')) return *m;
  }
  return "unknown";
}

std::string read_hostname(const std::string& root) {
  return std::string(trim(read_small_file(root + "/proc/sys/kernel/hostname").value_or("localhost"), kKernelTextBlanks));
}

BasicInfo read_basic_info(const std::string& root) {
  BasicInfo b;
  b.hostname = read_hostname(root);
  b.kernel_version = trim(read_small_file(root + "/proc/sys/kernel/osrelease").value_or("unknown"), kKernelTextBlanks);
  b.model = read_model(root);
  utsname u{};
  b.cpu_arch = ::uname(&u) == 0 ? u.machine : "unknown";
  const OsRelease os = parse_os_release(read_small_file(root + "/etc/os-release").value_or(""));
  b.os_name = os.name;
  b.os_version = os.version;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  b.cpu_cores = cores > 0 ? static_cast<int>(cores) : 1;
  if (auto mem = parse_meminfo(read_small_file(root + "/proc/meminfo").value_or(""))) b.memory_total_bytes = mem->total;
  b.uptime_seconds = parse_uptime_s(read_small_file(root + "/proc/uptime").value_or("")).value_or(0);
  return b;
}

std::optional<std::string> run_helper(const std::vector<std::string>& argv) {
  if (argv.empty() || ::access(argv[0].c_str(), X_OK) != 0) return std::nullopt;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return std::nullopt;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  std::string out;
  if (rc == 0) {
    char buf[512];
    for (ssize_t n; out.size() < 4096 && (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  }
  ::close(pipe_fds[0]);
  if (rc != 0) return std::nullopt;
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::nullopt;
  return out;
}

std::optional<double> parse_vcgencmd_temp(std::string_view text) {
  const auto at = text.find("temp=");
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view rest = text.substr(at + 5);
  double v = 0;
  const auto [p, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
  if (ec != std::errc() || p == rest.data() || p == rest.data() + rest.size() || *p != '\'') return std::nullopt;
  return v;
}

std::optional<Temperature> read_cpu_temperature(const std::string& root, const CommandRunner& run) {
  if (auto c = millidegrees(root + "/sys/class/thermal/thermal_zone0/temp")) return Temperature{*c, "thermal_zone"};
  if (auto out = run({"/usr/bin/vcgencmd", "measure_temp"})) {
    if (auto c = parse_vcgencmd_temp(*out)) return Temperature{*c, "vcgencmd"};
  }
  std::error_code ec;
  std::vector<std::string> inputs;
  for (const auto& hw : std::filesystem::directory_iterator(root + "/sys/class/hwmon", ec)) {
    for (const auto& f : std::filesystem::directory_iterator(hw.path(), ec)) {
      const std::string name = f.path().filename().string();
      if (name.rfind("temp", 0) == 0 && name.size() > 10 && name.substr(name.size() - 6) == "_input") inputs.push_back(f.path().string());
    }
  }
  std::sort(inputs.begin(), inputs.end());  // directory order is arbitrary; hwmon0/temp1 first
  for (const auto& path : inputs) {
    if (auto c = millidegrees(path)) return Temperature{*c, "hwmon"};
  }
  return std::nullopt;
}

std::optional<ThrottleFlags> parse_throttled(std::string_view text) {
  std::string_view v = trim(text, kKernelTextBlanks);
  if (const auto eq = v.find('='); eq != std::string_view::npos) v = v.substr(eq + 1);
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) v.remove_prefix(2);
  unsigned long word = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), word, 16);
  if (ec != std::errc() || p != v.data() + v.size() || v.empty()) return std::nullopt;
  return ThrottleFlags{(word & 0x1) != 0, (word & 0x2) != 0, (word & 0x4) != 0};
}

std::optional<ThrottleFlags> read_throttling(const std::string& root, const CommandRunner& run) {
  if (auto t = read_small_file(root + "/sys/devices/platform/soc/soc:firmware/get_throttled")) {
    if (auto f = parse_throttled(*t)) return f;
  }
  if (auto out = run({"/usr/bin/vcgencmd", "get_throttled"})) return parse_throttled(*out);
  return std::nullopt;
}

}  // namespace fleetmcp::device

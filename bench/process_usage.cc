#include "bench/process_usage.h"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace fleetmcp::bench {

int64_t resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  }
  return 0;
}

double cpu_seconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  // Fields after the command name (which may hold spaces, so start after its closing ')'):
  // state is field 3; utime and stime are fields 14 and 15 (proc(5)).
  const size_t close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream fields(text.substr(close + 2));
  std::string skip;
  for (int field = 3; field < 14; ++field) fields >> skip;
  long long utime = 0, stime = 0;
  fields >> utime >> stime;
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

std::map<std::string, pid_t> watch_list(const std::string& text) {
  std::map<std::string, pid_t> out;
  std::istringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--watch takes NAME=PID[,NAME=PID...]");
    out[item.substr(0, eq)] = static_cast<pid_t>(std::stoi(item.substr(eq + 1)));
  }
  return out;
}

}  // namespace fleetmcp::bench

#include "device_client/node/bundle_dir.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>

#include "common/base/error.h"

namespace fleetmcp::device {
namespace {

bool is_file(const std::string& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> configs_in(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string conf = dir + "/" + name + "/device.conf";
    if (is_file(conf)) out.push_back(conf);
  }
  ::closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> find_bundle_configs(const std::string& dir) {
  std::vector<std::string> configs = configs_in(dir + "/nodes");
  if (configs.empty()) configs = configs_in(dir);
  if (configs.empty()) {
    throw Error(ErrorCode::kBadRequest, dir + ": no enrolment bundles (<dir>/nodes/<node_id>/device.conf)",
                "enrol nodes first: fleetctl pki enroll --dir <dir> --tenant <t> --count <n>");
  }
  return configs;
}

}  // namespace fleetmcp::device

#include "device_client/update/package_version.h"

#include <filesystem>
#include <system_error>

#include "common/base/file_text.h"

namespace fleetmcp::device {

std::string package_version(const std::string& exe, std::string_view build_version) {
  const auto file = std::filesystem::path(exe).parent_path().parent_path() / "share/fleetmcp-device/version";
  const auto text = try_read_file(file.string());
  if (!text) return std::string(build_version);
  const std::string first = text->substr(0, text->find('\n'));
  const bool plain = !first.empty() && first.size() <= 64 &&
                     first.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+~-") ==
                         std::string::npos;
  return plain ? first : std::string(build_version);
}

std::string running_package_version(std::string_view build_version) {
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string(build_version) : package_version(exe.string(), build_version);
}

}  // namespace fleetmcp::device

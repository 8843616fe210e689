// Which version of fleetmcp-device this process is. The package installs its own version in
// <prefix>/share/fleetmcp-device/version (cmake/Packaging.cmake writes it from the package's
// Version), and that is what manage.server reports: it is the version apt installed, pins and
// compares (manage.server invoke's target_version), so an agent sees the number it can ask for.
// The build's compiled-in version stays in `build`; a binary run from a build tree (no such file
// beside it) reports the build's version for both.
#pragma once

#include <string>
#include <string_view>

namespace fleetmcp::device {

// `exe` is the running binary's path (/proc/self/exe); the file is looked for at
// <dir of exe>/../share/fleetmcp-device/version. Its first line, if it is a plain version
// (digits, letters, . + ~ -, at most 64 characters); `build_version` otherwise.
std::string package_version(const std::string& exe, std::string_view build_version);
// The same for this process.
std::string running_package_version(std::string_view build_version);

}  // namespace fleetmcp::device

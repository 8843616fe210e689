#include "device_client/host/mount_table.h"

#include <array>

namespace fleetmcp::device {
namespace {

// sysinfo's ignore list plus the other pseudo filesystems a Raspberry Pi OS or Debian host mounts.
constexpr std::array<std::string_view, 33> kPseudoFs{
    "rootfs",  "sysfs",     "proc",       "devtmpfs",   "devpts",   "tmpfs",     "ramfs",
    "cgroup",  "cgroup2",   "pstore",     "squashfs",   "rpc_pipefs", "iso9660", "udf",
    "securityfs", "debugfs", "tracefs",   "configfs",   "fusectl",  "mqueue",    "hugetlbfs",
    "bpf",     "binfmt_misc", "autofs",   "efivarfs",   "nsfs",     "overlay_internal", "selinuxfs",
    "cifs",    "smb3",      "nfs",        "nfs4",       "9p"};

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

bool under(std::string_view path, std::string_view dir) {
  return path == dir || (starts_with(path, dir) && path.size() > dir.size() && path[dir.size()] == '/');
}

// "\040" -> ' ' etc. (fs/proc_namespace.c mangle() escapes space, tab, newline and backslash).
std::string unescape(std::string_view field) {
  std::string out;
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const char a = field[i + 1], b = field[i + 2], c = field[i + 3];
      if (a >= '0' && a <= '3' && b >= '0' && b <= '7' && c >= '0' && c <= '7') {
        out.push_back(static_cast<char>((a - '0') * 64 + (b - '0') * 8 + (c - '0')));
        i += 3;
        continue;
      }
    }
    out.push_back(field[i]);
  }
  return out;
}

}  // namespace

std::vector<MountEntry> parse_mounts(std::string_view text) {
  std::vector<MountEntry> out;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    std::string_view fields[3];
    int n = 0;
    while (n < 3 && !line.empty()) {
      const auto start = line.find_first_not_of(' ');
      if (start == std::string_view::npos) break;
      line.remove_prefix(start);
      const auto end = line.find(' ');
      fields[n++] = line.substr(0, end);
      line.remove_prefix(end == std::string_view::npos ? line.size() : end);
    }
    if (n < 3) continue;
    out.push_back({unescape(fields[0]), unescape(fields[1]), unescape(fields[2])});
  }
  return out;
}

bool is_physical_filesystem(const MountEntry& e) {
  for (std::string_view fs : kPseudoFs) {
    if (e.fs_type == fs) return false;
  }
  // sshfs, gvfs, rclone …: remote or virtual, and statvfs may block. (fuseblk, ntfs-3g on a
  // USB disk, is a real device and stays.)
  if (starts_with(e.fs_type, "fuse.")) return false;
  if (starts_with(e.source, "sunrpc")) return false;
  if (under(e.mount, "/proc") || under(e.mount, "/sys") || under(e.mount, "/dev")) return false;
  if (under(e.mount, "/run") && !under(e.mount, "/run/media")) return false;
  return true;
}

}  // namespace fleetmcp::device

// The mounted filesystems a MetricsSample reports (docs/protocol.md D10: "disks = mounted physical
// filesystems", sysinfo's rule): /proc/self/mounts minus pseudo, virtual, optical and network
// filesystems and the kernel's own mount points.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fleetmcp::device {

struct MountEntry {
  std::string source, mount, fs_type;
};

// Parses /proc/self/mounts text; the octal escapes the kernel writes (\040 for a space …) are
// decoded. Malformed lines are skipped.
std::vector<MountEntry> parse_mounts(std::string_view text);

// True for a filesystem that holds data on a device: not proc/sysfs/tmpfs/cgroup/…, not a
// network filesystem (statvfs on a hard NFS mount can hang), not under /proc, /sys, /dev or /run
// (except /run/media, where desktops mount removable disks).
bool is_physical_filesystem(const MountEntry& entry);

}  // namespace fleetmcp::device

// The mount table: only physical filesystems, octal escapes decoded.
#include <gtest/gtest.h>

#include "device_client/host/mount_table.h"

namespace fleetmcp::device {
namespace {

constexpr const char* kMounts =
    "/dev/mmcblk0p2 / ext4 rw,noatime 0 0\n"
    "devtmpfs /dev devtmpfs rw,relatime,size=1677420k 0 0\n"
    "proc /proc proc rw,relatime 0 0\n"
    "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n"
    "securityfs /sys/kernel/security securityfs rw 0 0\n"
    "tmpfs /dev/shm tmpfs rw,nosuid,nodev 0 0\n"
    "devpts /dev/pts devpts rw 0 0\n"
    "tmpfs /run tmpfs rw,nosuid,nodev,size=776212k 0 0\n"
    "cgroup2 /sys/fs/cgroup cgroup2 rw 0 0\n"
    "/dev/mmcblk0p1 /boot/firmware vfat rw,relatime 0 0\n"
    "/dev/sda1 /media/usb\\040stick exfat rw 0 0\n"
    "/dev/sdb1 /run/media/pi/BACKUP ext4 rw 0 0\n"
    "/dev/loop0 /snap/core/1 squashfs ro 0 0\n"
    "nas:/export /mnt/nas nfs4 rw 0 0\n"
    "sshfs#me@host: /mnt/remote fuse.sshfs rw 0 0\n"
    "overlay / overlay rw,lowerdir=/a 0 0\n"
    "/dev/sr0 /media/cdrom iso9660 ro 0 0\n";

TEST(MountTable, KeepsOnlyPhysicalFilesystems) {
  std::vector<std::string> kept;
  for (const auto& m : parse_mounts(kMounts)) {
    if (is_physical_filesystem(m)) kept.push_back(m.mount + " " + m.fs_type);
  }
  EXPECT_EQ(kept, (std::vector<std::string>{"/ ext4", "/boot/firmware vfat", "/media/usb stick exfat",
                                             "/run/media/pi/BACKUP ext4", "/ overlay"}));
}

TEST(MountTable, DecodesOctalEscapes) {
  const auto mounts = parse_mounts("/dev/sda1 /a\\011b\\134c ext4 rw 0 0\nbroken-line\n");
  ASSERT_EQ(mounts.size(), 1u);
  EXPECT_EQ(mounts[0].mount, "/a\tb\\c");
}

}  // namespace
}  // namespace fleetmcp::device

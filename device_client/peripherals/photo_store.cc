#include "device_client/peripherals/photo_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <vector>

#include "common/ids/ulid.h"
#include "device_client/base/catalogue_error.h"

namespace fleetmcp::device {

namespace fs = std::filesystem;

PhotoStore::PhotoStore(std::string dir, std::string cap_id, size_t max_files)
    : dir_(std::move(dir)), prefix_(std::move(cap_id) + "-"), max_files_(max_files) {}

Result<std::string> PhotoStore::save(const std::string& image, std::string_view extension) {
  std::lock_guard lock(mutex_);
  std::error_code ec;
  fs::create_directories(dir_, ec);
  // ULIDs sort by time, so the names sort oldest first and prune() needs no stat calls.
  const std::string path = dir_ + "/" + prefix_ + new_node_id() + std::string(extension);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd < 0) {
    return failed_precondition("cannot create a photo in " + dir_ + ": " + errno_text(errno),
                               "create the directory given by dir= and make it writable by the service user");
  }
  size_t done = 0;
  while (done < image.size()) {
    const ssize_t n = ::write(fd, image.data() + done, image.size() - done);
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  ::close(fd);
  if (done != image.size()) {
    ::unlink(path.c_str());
    return failed_precondition("the photo could not be written (disk full?)", "free space on the device");
  }
  prune();
  return path;
}

void PhotoStore::prune() {
  std::vector<std::string> ours;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    const std::string_view ext = name.size() > 4 ? std::string_view(name).substr(name.size() - 4) : "";
    if (name.rfind(prefix_, 0) == 0 && (ext == ".jpg" || ext == ".png")) ours.push_back(name);
  }
  if (ours.size() <= max_files_) return;
  std::sort(ours.begin(), ours.end());
  for (size_t i = 0; i + max_files_ < ours.size(); ++i) fs::remove(dir_ + "/" + ours[i], ec);
}

}  // namespace fleetmcp::device

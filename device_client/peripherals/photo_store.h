// Where camera.still puts photos (Doc 05 §7.1): only paths this class generates, under the one
// configured directory: "<dir>/<cap_id>-<ULID>.jpg" (or .png), created with O_EXCL, mode 0640. A client never
// supplies any part of a path. The oldest photos beyond max_files are deleted, so an agent taking
// photos in a loop cannot fill the SD card.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

#include "common/base/result.h"

namespace fleetmcp::device {

class PhotoStore {
 public:
  PhotoStore(std::string dir, std::string cap_id, size_t max_files);

  // `extension` is ".jpg" or ".png". The absolute path written, or failed_precondition when the
  // directory is unusable.
  Result<std::string> save(const std::string& image, std::string_view extension);
  const std::string& dir() const { return dir_; }

 private:
  void prune();

  std::mutex mutex_;
  const std::string dir_, prefix_;
  const size_t max_files_;
};

}  // namespace fleetmcp::device

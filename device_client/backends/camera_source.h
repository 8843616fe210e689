// camera.still's image sources: libcamera on a Pi (in the fleetmcp-camera-still helper process,
// camera_helper.h), a test pattern on --simulate nodes. Both deliver packed 8-bit pixels that the
// JPEG encoder takes as they are.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "common/base/result.h"

namespace fleetmcp::device {

enum class PixelOrder { kRgb, kBgr, kBgrx };  // bytes in memory, per pixel

struct Frame {
  int width = 0, height = 0, stride = 0;  // stride in bytes
  PixelOrder order = PixelOrder::kRgb;
  std::vector<uint8_t> pixels;
};

class CameraSource {
 public:
  virtual ~CameraSource() = default;
  virtual Result<Frame> capture(int width, int height) = 0;
};

// Colour bars with a moving marker (the frame counter), so two photos differ as real ones do.
std::unique_ptr<CameraSource> make_test_pattern_camera();
// The index-th camera libcamera lists, in this process (only the helper links libcamera). Absent
// camera or stack: failed_precondition at capture; a camera held by another program:
// resource_exhausted (Doc 05 §2.6.5 "device busy").
std::unique_ptr<CameraSource> make_libcamera_source(unsigned index);
// The same through the helper executable at `helper` (camera_helper.h), with the same errors.
std::unique_ptr<CameraSource> make_camera_helper_source(std::string helper, unsigned index);

}  // namespace fleetmcp::device

// PNG encoding of camera.still's `format: png` (Doc 05 §7.1) with libpng's simplified write API:
// lossless 8-bit RGB, zlib's default compression. libpng is Debian's libpng16-16, a library every
// Raspberry Pi OS image already carries.
#pragma once

#include <string>

#include "common/base/result.h"
#include "device_client/backends/camera_source.h"

namespace fleetmcp::device {

// The PNG file bytes of `frame`; failed_precondition when libpng refuses the image.
Result<std::string> encode_png(const Frame& frame);

}  // namespace fleetmcp::device

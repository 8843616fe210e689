// JPEG encoding with libturbojpeg, the downscaled preview of camera.still and the base64 text MCP
// image content carries (OpenSSL's encoder).
#pragma once

#include <cstddef>
#include <string>

#include "common/base/result.h"
#include "device_client/backends/camera_source.h"

namespace fleetmcp::device {

// failed_precondition when libturbojpeg refuses.
Result<std::string> encode_jpeg(const Frame& frame, int quality);
// Box-filtered copy at most `max_width` wide (aspect kept), in RGB order.
Frame downscale(const Frame& frame, int max_width);

struct Preview {
  int width = 0, height = 0;
  std::string jpeg;
};
// The largest preview, from 320 px wide at quality 60 down to 160 px at quality 30, whose JPEG
// fits `max_bytes`; the smallest attempt if none does. Bounded work: at most six encodes.
Result<Preview> make_preview(const Frame& frame, size_t max_bytes);

std::string base64_encode(const std::string& bytes);

}  // namespace fleetmcp::device

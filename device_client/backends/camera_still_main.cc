// fleetmcp-camera-still: one frame from libcamera to stdout (camera_helper.h has the protocol and
// why this is a separate process).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "common/base/error.h"
#include "device_client/backends/camera_helper.h"
#include "device_client/backends/camera_source.h"

namespace {

int usage() {
  std::fprintf(stderr, "usage: fleetmcp-camera-still --camera N --width W --height H\n");
  return 1;
}

bool write_all(const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(STDOUT_FILENO, p, n);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int camera = -1, width = 0, height = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const int v = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--camera") == 0) camera = v;
    else if (std::strcmp(argv[i], "--width") == 0) width = v;
    else if (std::strcmp(argv[i], "--height") == 0) height = v;
    else return usage();
  }
  if (argc != 7 || camera < 0 || width < 1 || width > 8192 || height < 1 || height > 8192) return usage();
  const auto captured = fleetmcp::device::make_libcamera_source(static_cast<unsigned>(camera))->capture(width, height);
  if (!captured) {
    const fleetmcp::ErrorEnvelope& e = captured.error();
    std::fprintf(stderr, "fleetmcp-camera-still: %s\n", e.message.c_str());
    if (e.code == fleetmcp::ErrorCode::kRateLimited) return fleetmcp::device::kHelperBusy;
    if (e.message.find("no camera") != std::string::npos || e.message.find("libcamera stack did not start") != std::string::npos) {
      return fleetmcp::device::kHelperNoCamera;
    }
    return fleetmcp::device::kHelperFailed;
  }
  const fleetmcp::device::Frame& f = *captured;
  const char* order = f.order == fleetmcp::device::PixelOrder::kBgr ? "bgr"
                      : f.order == fleetmcp::device::PixelOrder::kBgrx ? "bgrx" : "rgb";
  const std::string header = "FRAME " + std::to_string(f.width) + " " + std::to_string(f.height) + " " +
                             std::to_string(f.stride) + " " + order + "\n";
  if (!write_all(header.data(), header.size()) || !write_all(f.pixels.data(), f.pixels.size())) return fleetmcp::device::kHelperFailed;
  return 0;
}

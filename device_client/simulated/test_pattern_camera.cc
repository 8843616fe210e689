#include <atomic>

#include "device_client/backends/camera_source.h"

namespace fleetmcp::device {
namespace {

constexpr uint8_t kBars[8][3] = {{235, 235, 235}, {235, 235, 16}, {16, 235, 235}, {16, 235, 16},
                                 {235, 16, 235},  {235, 16, 16},  {16, 16, 235},  {16, 16, 16}};

class TestPatternCamera : public CameraSource {
 public:
  Result<Frame> capture(int width, int height) override {
    Frame f{width, height, width * 3, PixelOrder::kRgb, {}};
    f.pixels.resize(static_cast<size_t>(f.stride) * static_cast<size_t>(height));
    const int shot = frames_++;
    const int marker_x = (shot * width / 16) % width;
    for (int y = 0; y < height; ++y) {
      uint8_t* row = f.pixels.data() + static_cast<size_t>(y) * static_cast<size_t>(f.stride);
      for (int x = 0; x < width; ++x) {
        const uint8_t* c = kBars[x * 8 / width];
        const bool marker = y > height * 3 / 4 && x >= marker_x && x < marker_x + width / 16;
        for (int k = 0; k < 3; ++k) row[x * 3 + k] = marker ? static_cast<uint8_t>(255 - c[k]) : c[k];
      }
    }
    return f;
  }

 private:
  std::atomic<int> frames_{0};
};

}  // namespace

std::unique_ptr<CameraSource> make_test_pattern_camera() { return std::make_unique<TestPatternCamera>(); }

}  // namespace fleetmcp::device

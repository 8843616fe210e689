// camera.still (Doc 05 §7.1 camera.take_photo): captures, encodes to JPEG (libturbojpeg) or PNG
// (libpng, `format: png`), stores the photo on the device under a generated path and answers with that path and a bounded preview (the cmd_ack
// must stay far below the 64 KiB a cmd may be; the full image goes out of band).
#pragma once

#include <memory>
#include <mutex>
#include <string_view>

#include "device_client/backends/camera_source.h"
#include "device_client/peripherals/photo_store.h"
#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kCameraKind = "camera.still";
inline constexpr size_t kMaxPreviewBytes = 24 * 1024;  // 32 KiB of base64, the schema's bound

class CameraHandler : public ToolHandler {
 public:
  CameraHandler(std::unique_ptr<CameraSource> source, std::unique_ptr<PhotoStore> store)
      : ToolHandler(SafetyClass::kReversible, {"invoke"}), source_(std::move(source)), store_(std::move(store)) {}

  Result<json::Document> run(const ToolCall& call) override;

 private:
  std::mutex mutex_;  // one capture at a time: the hardware has one sensor
  const std::unique_ptr<CameraSource> source_;
  const std::unique_ptr<PhotoStore> store_;
};

}  // namespace fleetmcp::device

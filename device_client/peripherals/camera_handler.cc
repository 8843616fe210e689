#include "device_client/peripherals/camera_handler.h"

#include "common/ids/ulid.h"
#include "device_client/host/iso_time.h"
#include "device_client/peripherals/jpeg_encoding.h"
#include "device_client/peripherals/png_encoding.h"

namespace fleetmcp::device {

Result<json::Document> CameraHandler::run(const ToolCall& call) {
  const std::string_view resolution = json::get_string(call.arguments, "resolution").value_or("1280x720");
  const int width = resolution == "640x480" ? 640 : resolution == "1920x1080" ? 1920 : 1280;
  const int height = resolution == "640x480" ? 480 : resolution == "1920x1080" ? 1080 : 720;
  const auto q = call.arguments.FindMember("quality");
  const int quality = q != call.arguments.MemberEnd() && q->value.IsInt() ? q->value.GetInt() : 85;
  const bool png = json::get_string(call.arguments, "format").value_or("jpeg") == "png";

  std::lock_guard lock(mutex_);
  const auto captured = source_->capture(width, height);
  if (!captured) return captured.error();
  const Frame& frame = *captured;
  const int64_t taken_ms = now_ms();
  const auto image = png ? encode_png(frame) : encode_jpeg(frame, quality);
  if (!image) return image.error();
  const auto path = store_->save(*image, png ? ".png" : ".jpg");
  if (!path) return path.error();
  const auto preview = make_preview(frame, kMaxPreviewBytes);
  if (!preview) return preview.error();

  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  d.AddMember("file_path", json::string_value(*path, a), a);
  d.AddMember("public_url", rapidjson::Value(), a);
  d.AddMember("width", frame.width, a);
  d.AddMember("height", frame.height, a);
  d.AddMember("format", rapidjson::StringRef(png ? "png" : "jpeg"), a);
  d.AddMember("size_bytes", static_cast<uint64_t>(image->size()), a);
  d.AddMember("timestamp", json::string_value(iso_utc_from_ms(taken_ms), a), a);
  rapidjson::Value p(rapidjson::kObjectType);
  p.AddMember("mime_type", "image/jpeg", a);
  p.AddMember("width", preview->width, a);
  p.AddMember("height", preview->height, a);
  p.AddMember("data_base64", json::string_value(base64_encode(preview->jpeg), a), a);
  d.AddMember("preview", p, a);
  return d;
}

}  // namespace fleetmcp::device

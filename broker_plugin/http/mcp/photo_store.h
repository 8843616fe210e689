// Photos as MCP resources (issue 37 item 9): a camera.still result carries a JPEG preview
// (catalogue.md "Photos"); the broker keeps that image for a while so that a tool result can link
// it (a `resource_link` content item, MCP 2025-06-18) and the client read it with resources/read
// (`fleetmcp://nodes/{node_id}/photos/{photo_id}`, a base64 blob), instead of the base64 repeated
// in the result's text.
//
// What is kept is the image the broker received: the device keeps the full-resolution file at
// file_path, and no verb brings it over MQTT (a cmd_ack is at most 256 KiB, docs/plugin.md).
// Bounds: at most kPhotosPerTenant photos per tenant (the oldest goes first), each at most the
// preview's 32 KiB of base64, so at most 512 KiB per tenant; a photo expires kPhotoLifetimeMs
// after it was taken. A photo of another tenant is "not found", exactly like one that expired.
// Any thread.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/base/json.h"

namespace fleetmcp::http {

inline constexpr std::string_view kPhotoResourceTemplate = "fleetmcp://nodes/{node_id}/photos/{photo_id}";
inline constexpr size_t kPhotosPerTenant = 16;
inline constexpr int64_t kPhotoLifetimeMs = 15 * 60 * 1000;

struct KeptPhoto {
  std::string uri, mime_type;
  size_t size_bytes = 0;  // of the decoded image
};

class PhotoStore {
 public:
  // `steady_ms`: a monotonic clock in milliseconds (expiry).
  explicit PhotoStore(std::function<int64_t()> steady_ms) : steady_ms_(std::move(steady_ms)) {}

  // Keeps the `preview` of a camera.still result of `node_id` and says where it can be read;
  // nullopt when the result has no image preview.
  std::optional<KeptPhoto> keep(std::string_view tenant, std::string_view node_id, const json::Value& result);
  // The resources/read result {contents: [{uri, mimeType, blob}]}; nullopt: none for this tenant.
  std::optional<json::Document> read_result(std::string_view tenant, std::string_view uri);
  static bool is_photo_uri(std::string_view uri);

 private:
  struct Photo {
    std::string uri, mime_type, data_base64;
    int64_t taken_ms = 0;
  };
  void expire(std::deque<Photo>& photos, int64_t now);

  std::function<int64_t()> steady_ms_;
  std::mutex mutex_;
  uint64_t next_id_ = 1;
  std::map<std::string, std::deque<Photo>, std::less<>> by_tenant_;  // oldest first
};

}  // namespace fleetmcp::http

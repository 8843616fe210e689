#include "broker_plugin/http/mcp/photo_store.h"

#include <algorithm>

namespace fleetmcp::http {
namespace {

constexpr std::string_view kPrefix = "fleetmcp://nodes/";
constexpr std::string_view kPhotos = "/photos/";

size_t decoded_size(std::string_view base64) {
  size_t padding = 0;
  while (padding < 2 && padding < base64.size() && base64[base64.size() - 1 - padding] == '=') ++padding;
  return base64.size() / 4 * 3 - padding;
}

}  // namespace

bool PhotoStore::is_photo_uri(std::string_view uri) {
  return uri.starts_with(kPrefix) && uri.find(kPhotos, kPrefix.size()) != std::string_view::npos;
}

void PhotoStore::expire(std::deque<Photo>& photos, int64_t now) {
  while (!photos.empty() && now - photos.front().taken_ms >= kPhotoLifetimeMs) photos.pop_front();
}

std::optional<KeptPhoto> PhotoStore::keep(std::string_view tenant, std::string_view node_id, const json::Value& result) {
  const json::Value* preview = result.IsObject() ? json::find(result, "preview") : nullptr;
  if (preview == nullptr || !preview->IsObject()) return std::nullopt;
  const auto data = json::get_string(*preview, "data_base64");
  const auto mime = json::get_string(*preview, "mime_type");
  if (!data || !mime || !mime->starts_with("image/") || data->empty()) return std::nullopt;
  const int64_t now = steady_ms_();
  std::lock_guard<std::mutex> lock(mutex_);
  auto& photos = by_tenant_[std::string(tenant)];
  expire(photos, now);
  if (photos.size() == kPhotosPerTenant) photos.pop_front();
  Photo p{std::string(kPrefix) + std::string(node_id) + std::string(kPhotos) + "p" + std::to_string(next_id_++),
          std::string(*mime), std::string(*data), now};
  KeptPhoto kept{p.uri, p.mime_type, decoded_size(p.data_base64)};
  photos.push_back(std::move(p));
  return kept;
}

std::optional<json::Document> PhotoStore::read_result(std::string_view tenant, std::string_view uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = by_tenant_.find(tenant);
  if (it == by_tenant_.end()) return std::nullopt;
  expire(it->second, steady_ms_());
  const auto photo = std::find_if(it->second.begin(), it->second.end(), [uri](const Photo& p) { return p.uri == uri; });
  if (photo == it->second.end()) return std::nullopt;
  json::Document d(rapidjson::kObjectType);
  auto& a = d.GetAllocator();
  json::Value content(rapidjson::kObjectType), contents(rapidjson::kArrayType);
  content.AddMember("uri", json::string_value(photo->uri, a), a);
  content.AddMember("mimeType", json::string_value(photo->mime_type, a), a);
  content.AddMember("blob", json::string_value(photo->data_base64, a), a);
  contents.PushBack(content, a);
  d.AddMember("contents", contents, a);
  return d;
}

}  // namespace fleetmcp::http

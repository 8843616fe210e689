#include "device_client/node/announce_signer.h"

#include "common/ids/ulid.h"

namespace fleetmcp::device {

AnnounceSigner::AnnounceSigner(const NodeIdentity& identity, const ToolTable& tools,
                               FingerprintSources sources, int64_t ttl_ms, std::string hostname,
                               std::vector<std::string> labels)
    : identity_(identity), ttl_ms_(ttl_ms) {
  content_.node_id = identity.node_id;
  content_.hw_sources = std::move(sources);
  content_.kid = identity.kid;
  content_.capabilities = tools.capabilities();
  if (is_host_name(hostname)) content_.hostname = std::move(hostname);
  content_.labels = std::move(labels);  // checked when the configuration was read
}

SignedAnnounce AnnounceSigner::sign(int64_t now_ms) const {
  ManifestContent content = content_;
  content.issued_at_ms = now_ms;
  content.expires_at_ms = now_ms + ttl_ms_;
  json::Document manifest = build_manifest(content);
  SignedAnnounce out;
  out.bytes = sign_manifest(manifest, identity_.key).value();  // build_manifest always sets alg and kid
  out.etag = manifest_etag(manifest);
  out.issued_at_ms = content.issued_at_ms;
  out.expires_at_ms = content.expires_at_ms;
  return out;
}

void AnnounceSigner::check(const SchemaRegistry& schemas, const std::string& config_file) const {
  const SignedAnnounce announce = sign(now_ms());
  const json::Document doc = json::parse_strict(announce.bytes, ErrorCode::kManifestInvalid).value();
  if (const auto failure = schemas.validate(kManifestSchemaId, doc)) {
    throw Error(ErrorCode::kManifestInvalid,
                config_file + ": the manifest it describes is not valid " + std::string(kManifestSchemaId) +
                    " at '" + failure->path + "': " + failure->message,
                "keep each capability.* line within its kind's limits (RFC-0001 section 2 clamps)");
  }
}

}  // namespace fleetmcp::device

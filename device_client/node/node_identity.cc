#include "device_client/node/node_identity.h"

namespace fleetmcp::device {
namespace {

[[noreturn]] void bundle_error(const std::string& file, std::string_view what, std::string_view fix) {
  throw Error(ErrorCode::kAttestationFailed, file + ": " + std::string(what), fix);
}

void check_subject(const DeviceConfig& config, const Certificate& cert) {
  if (cert.subject_cn() != config.node_id) {
    bundle_error(config.cert_file, "certificate CN is not the node_id of " + config.file,
                 "use the node.crt of the same enrolment bundle as device.conf");
  }
  if (cert.subject_o() != config.tenant) {
    bundle_error(config.cert_file, "certificate O is not the tenant of " + config.file,
                 "use the node.crt of the same enrolment bundle as device.conf");
  }
}

}  // namespace

NodeIdentity load_node_identity(const DeviceConfig& config, int64_t now_ms) {
  // Start-up: value() throws what cannot be loaded to main(), which stops the device.
  Ed25519PrivateKey key = Ed25519PrivateKey::load_pem_file(config.key_file).value();
  Certificate cert = Certificate::load_pem_file(config.cert_file).value();
  Certificate ca = Certificate::load_pem_file(config.ca_file).value();
  check_subject(config, cert);
  if (cert.ed25519_public_key().value() != key.public_key()) {
    bundle_error(config.key_file, "private key does not belong to " + config.cert_file,
                 "use the node.key and node.crt of the same enrolment bundle");
  }
  if (!cert.is_issued_by(ca, now_ms)) {
    bundle_error(config.cert_file, "not issued by " + config.ca_file + " or outside its validity period",
                 "re-enrol the node (fleetctl pki enroll) or check the system clock");
  }
  const std::string kid = cert.thumbprint();
  return NodeIdentity{config.node_id, config.tenant, std::move(key), std::move(cert), std::move(ca), kid};
}

}  // namespace fleetmcp::device

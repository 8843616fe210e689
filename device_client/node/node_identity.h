// A node's enrolled identity (docs/protocol.md §2): its Ed25519 key, its leaf certificate (CN=node_id,
// O=tenant) and the fleet CA. Loaded and cross-checked once at start, so a mismatched bundle is
// refused with the file named instead of failing later as an opaque TLS or attestation error.
#pragma once

#include <string>

#include "common/crypto/ed25519.h"
#include "common/crypto/x509.h"
#include "device_client/config/device_config.h"

namespace fleetmcp::device {

struct NodeIdentity {
  std::string node_id, tenant;
  Ed25519PrivateKey key;
  Certificate cert, ca;
  std::string kid;  // certificate thumbprint (RFC-0001 decision #1)
};

// Throws Error naming the file that is wrong: unreadable, not Ed25519, CN/O not matching the
// config, key not matching the certificate, certificate not issued by the CA or expired.
NodeIdentity load_node_identity(const DeviceConfig& config, int64_t now_ms);

}  // namespace fleetmcp::device

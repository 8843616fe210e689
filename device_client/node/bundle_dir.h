// Enrolment bundles for --simulate: `fleetctl pki enroll --count N` writes DIR/nodes/<id>/device.conf;
// DIR may also be the nodes directory itself.
#pragma once

#include <string>
#include <vector>

namespace fleetmcp::device {

// The device.conf of every bundle under `dir`, sorted by node directory name. Throws
// Error(kBadRequest) naming `dir` when it holds none.
std::vector<std::string> find_bundle_configs(const std::string& dir);

}  // namespace fleetmcp::device

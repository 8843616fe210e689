// What the plugin remembers across broker restarts (plugin_opt_state_file): per node its tenant,
// certificate, the issued_at_ms of its last accepted manifest (replay, docs/protocol.md §5 check 8) and its
// pinned hw_fingerprint (check 9). mosquitto restores retained announces without the plugin; the
// remembered certificate is what lets the plugin re-verify them on the first tick. And which
// principal owns each client id whose session mosquitto persists (client_id_claims.h): mosquitto
// restores those sessions too.
// One JSON document, replaced atomically (write to a temporary file, then rename).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "broker_plugin/access/client_id_claims.h"
#include "common/base/result.h"

namespace fleetmcp::plugin {

struct PersistedNode {
  std::string node_id, tenant;
  std::string certificate_pem;
  std::optional<int64_t> last_issued_at_ms;
  std::string hw_fingerprint, hw_kid;  // empty: not pinned
  bool remote = false;                 // connected to another broker (docs/protocol.md §12)
};

struct PersistedState {
  std::vector<PersistedNode> nodes;
  std::vector<DurableClaim> client_ids;  // absent from files written before issue 24: none
};

// A missing file is an empty state. E_INTERNAL naming the file when it is unreadable or malformed,
// so a damaged state never silently drops replay protection (the plugin refuses to start).
Result<PersistedState> load_state_file(const std::string& path);
// E_INTERNAL naming the file when it cannot be written.
Status save_state_file(const std::string& path, const PersistedState& state);

}  // namespace fleetmcp::plugin

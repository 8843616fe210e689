// The command envelopes of docs/protocol.md §4 (schemas/cmd@1.0.0.json, cmd_ack@1.0.0.json) as the plugin
// writes and reads them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/base/error.h"
#include "common/base/json.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp::plugin {

// `arguments_json` is a JSON object that parse_strict accepts (the caller has checked it): it is
// written into payload.arguments as it is, not parsed and serialised again.
std::string cmd_envelope(std::string_view msg_id, int64_t ts_ms, int64_t deadline_ms, std::string_view tool,
                         std::string_view arguments_json);

struct CmdAck {
  std::string msg_id, in_reply_to;
  bool ok = false;
  json::Document doc;                 // holds the result (in the arena parse_cmd_ack was given)
  const json::Value* result = nullptr;  // payload.result when ok
  ErrorEnvelope error;                // when !ok: the device's code, server-templated text
  // E_DEADLINE_EXCEEDED with the kNotRunPrefix message: the cmd arrived after its deadline and the
  // device did not run it (docs/protocol.md §4.3 step 5).
  bool not_run = false;
};

// The largest cmd_ack the plugin reads, and so the largest message of the fleet (a manifest and a
// cmd are at most 64 KiB): mosquitto.conf's max_packet_size is sized from it (broker_config_check.h).
inline constexpr size_t kMaxCmdAckBytes = 256 * 1024;

// Strict parse and validation against cmd_ack@1.0.0. nullopt for anything else (also past kMaxCmdAckBytes). The device's
// message and suggested_fix are dropped: error text that reaches agents is server-templated
// (docs/protocol.md §9); its code and retry_after_ms are kept, and whether it says it did not run the
// command (not_run), which picks the template. The ack is parsed into `arena`: it is
// valid until the arena's next parse.
std::optional<CmdAck> parse_cmd_ack(std::string_view payload, const SchemaRegistry& schemas, json::ParseArena& arena);

}  // namespace fleetmcp::plugin

// The `cmd` envelope (docs/protocol.md §4, schemas/cmd@1.0.0.json): the plugin writes it on
// $devices/<id>/cmd, the node reads it.
//   {"type":"cmd","msg_id":"<ULID, uppercase>","ts_ms":…,"deadline_ms":…,
//    "payload":{"tool":"<kind_short>.<node_id>.<cap_id>.<verb>","arguments":{…}}}
// Reading happens in two steps because the first decides whether there is anyone to answer:
// without a usable msg_id a cmd_ack cannot be correlated, so such a cmd is logged and dropped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/base/json.h"

namespace fleetmcp {

// ---- writing (the plugin, once per call) ------------------------------------------------------

// `arguments_json` is a JSON object that parse_strict accepts (the caller has checked it): it is
// written into payload.arguments as it is, not parsed and serialised again.
std::string write_cmd(std::string_view msg_id, int64_t ts_ms, int64_t deadline_ms, std::string_view tool,
                      std::string_view arguments_json);

// ---- reading (the node) -----------------------------------------------------------------------

// A cmd over 64 KiB is refused (E_BAD_REQUEST). Up to 1 MiB is still parsed, only to find its
// msg_id so the refusal can be sent; the session's MQTT Maximum Packet Size keeps anything larger
// from ever arriving.
inline constexpr size_t kMaxCmdBytes = 64 * 1024;
inline constexpr size_t kMaxCmdParseBytes = 1024 * 1024;

struct ReceivedCmd {
  json::Document doc;
  std::string msg_id;
  size_t size = 0;
};

// Step 1: strict JSON with a well-formed msg_id, or E_BAD_REQUEST saying what was missing (a cmd
// without a msg_id cannot be answered: the device drops it and logs the message).
Result<ReceivedCmd> read_cmd(std::string_view payload);

struct CmdEnvelope {
  std::string msg_id;
  int64_t ts_ms = 0, deadline_ms = 0;
  std::string tool;
  const json::Value* arguments = nullptr;  // points into the ReceivedCmd's document
};

// Step 2: size, type, ts_ms, deadline_ms, payload.tool (the dotted four-segment form of RFC-0002
// §5.7) and payload.arguments, or E_BAD_REQUEST naming the field that is wrong.
Result<CmdEnvelope> check_cmd_envelope(const ReceivedCmd& cmd);

}  // namespace fleetmcp

// The `cmd_ack` envelope (docs/protocol.md §4, schemas/cmd_ack@1.0.0.json): a node sends exactly one
// per cmd on $devices/<id>/cmd_ack, the plugin reads it.
//   {"type":"cmd_ack","msg_id":…,"in_reply_to":…,"payload":{"ok":true,"result":{…}}}
//   {"type":"cmd_ack","msg_id":…,"in_reply_to":…,"payload":{"ok":false,"error":{RFC-0001 §4}}}
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/error.h"
#include "common/base/json.h"
#include "common/registry/schema_registry.h"

namespace fleetmcp {

// Doc 05 §9.1.1's symbolic error codes: the closed set of reasons a node's error may give. On the
// wire a reason opens the error's message, "<reason>: <the device's text>" (cmd_ack@1.0.0 has no
// field for it, and its hash is pinned); the reader takes a reason only when it is one of these, so
// what it passes on is never the device's free text.
enum class DeviceReason {
  kInvalidArgument,     // arguments that pass the schema but make no sense together
  kPermissionDenied,    // outside the capability's allow-list, or disabled by configuration
  kNotFound,            // a named thing (a pid, a unit) does not exist
  kFailedPrecondition,  // hardware or a service absent or not ready; the node's state forbids it
  kResourceExhausted,   // hardware busy, disk full: retry later (E_RATE_LIMITED); with E_BAD_REQUEST,
                        // a result larger than kMaxResultBytes: ask for fewer
  kUnavailable,         // a dependency (D-Bus, systemd, logind) is unreachable for now
  kInternal,            // the device software failed
};
std::string_view device_reason_name(DeviceReason reason);  // "invalid_argument" …
std::optional<DeviceReason> device_reason_from_name(std::string_view name);

// ---- writing (the node) -----------------------------------------------------------------------

// The message of an error with `reason`: "<reason>: <what>".
std::string reasoned_message(DeviceReason reason, std::string_view what);

// Doc 05 addendum §6.1: the refusal to stop or disable a unit that active services depend on is a
// failed_precondition whose message names them after the reason, in a form the reader can check
// name by name: "failed_precondition: dependent_services=[a.service,b.service] <what>". Only names
// that pass is_service_unit_name (common/ids/unit_name.h) are written, at most
// kMaxDependentServices and as many as fit the envelope's 512 characters.
inline constexpr size_t kMaxDependentServices = 16;
std::string dependents_message(const std::vector<std::string>& services, std::string_view what);

std::string ok_ack(std::string_view ack_msg_id, std::string_view in_reply_to, const json::Value& result);
std::string error_ack(std::string_view ack_msg_id, std::string_view in_reply_to, const ErrorEnvelope& error);

// ---- reading (the plugin, once per call) ------------------------------------------------------

// The largest cmd_ack the plugin reads, and so the largest message of the fleet (a manifest and a
// cmd are at most 64 KiB): mosquitto.conf's max_packet_size is sized from it (broker_config_check.h).
inline constexpr size_t kMaxCmdAckBytes = 256 * 1024;
// The most bytes of result a node puts in one cmd_ack: kMaxCmdAckBytes less room for the envelope
// around it (type, two ULIDs, payload.ok: under 200 bytes). A handler whose result grows with what
// it reads (logs.journal, process.table) stops adding items before it and says there is more; the
// node's dispatcher answers a larger one with E_BAD_REQUEST, reason resource_exhausted, instead of an ack the
// plugin would drop (or, past max_packet_size, one that makes the broker disconnect the node).
inline constexpr size_t kMaxResultBytes = kMaxCmdAckBytes - 1024;

// What an ack says, as the device said it. Its error text is the device's and untrusted: what a
// caller is told is the reader's policy (the plugin templates it, docs/protocol.md §4.4 and §9).
struct CmdAck {
  std::string msg_id, in_reply_to;
  bool ok = false;
  json::Document doc;                   // holds the result (in the arena parse_cmd_ack was given)
  const json::Value* result = nullptr;  // payload.result when ok
  const json::Value* error = nullptr;   // payload.error when !ok: an RFC-0001 envelope, device text
  ErrorCode code = ErrorCode::kInternal;  // when !ok: error.code (kInternal for a code this build lacks)
  std::optional<int64_t> retry_after_ms;  // when !ok: error.retry_after_ms, if present and >= 0
  std::optional<DeviceReason> reason;     // when !ok: the reason error.message opens with, if any
  // when reason is failed_precondition: the dependent_services=[…] the message carries, only the
  // names that are service unit names (dependents_message), at most kMaxDependentServices
  std::vector<std::string> dependent_services;
  // E_DEADLINE_EXCEEDED with the kNotRunPrefix message: the cmd arrived after its deadline and the
  // device did not run it (docs/protocol.md §4.3 step 5).
  bool not_run = false;
};

// Strict parse and validation against cmd_ack@1.0.0. nullopt for anything else (also past
// kMaxCmdAckBytes). The ack is parsed into `arena`: it is valid until the arena's next parse.
std::optional<CmdAck> parse_cmd_ack(std::string_view payload, const SchemaRegistry& schemas, json::ParseArena& arena);

}  // namespace fleetmcp

// The opt-in test driver of the command path (plugin_opt_control_api true), until the HTTP
// front lands: an authenticated agent publishes a request on $CONTROL/fleetmcp/v1 and gets the
// answer on $CONTROL/fleetmcp/v1/response, as mosquitto's dynamic-security plugin does.
//   {"id":"1","tool":"sysecho.<node_id>.echo.invoke","arguments":{"message":"ping"}}
//   {"id":"2","command":"counters"}      {"id":"3","command":"nodes"}
// Answers: {"id","ok":true,"tool","node_id","result","latency_ms"} | {"id","ok":false,"error":{…}}
//          {"id","ok":true,"counters":{…}} | {"id","ok":true,"nodes":[{node_id,state,manifest_etag,tools}]}
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "common/base/error.h"
#include "common/base/result.h"

namespace fleetmcp::plugin {

inline constexpr std::string_view kControlTopic = "$CONTROL/fleetmcp/v1";
inline constexpr std::string_view kControlResponseTopic = "$CONTROL/fleetmcp/v1/response";

struct ControlCall {
  std::string id, tool, arguments_json;
};
struct ControlCommand {
  std::string id, command;  // "counters" | "nodes"
};
using ControlRequest = std::variant<ControlCall, ControlCommand>;

// A request that does not parse: E_BAD_REQUEST saying what is wrong, and the id when it was
// readable, so the error answer can still be correlated.
struct ControlRefusal {
  std::string id;
  ErrorEnvelope error;
};

Result<ControlRequest, ControlRefusal> parse_control_request(std::string_view payload);

std::string control_error(std::string_view id, const ErrorEnvelope& error);
std::string control_call_answer(std::string_view id, std::string_view tool, std::string_view node_id,
                                std::string_view result_json, int64_t latency_ms);
// `body_json` is spliced in as the value of `key` ("counters" / "nodes").
std::string control_command_answer(std::string_view id, std::string_view key, std::string_view body_json);

}  // namespace fleetmcp::plugin

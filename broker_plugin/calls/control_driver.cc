#include "broker_plugin/calls/control_driver.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "broker_plugin/calls/control_api.h"
#include "common/protocol/node_state.h"
#include "common/registry/kinds.h"

namespace fleetmcp::plugin {

ControlDriver::ControlDriver(CallDispatch& calls, const NodeRegistry& registry, const SchemaRegistry& schemas,
                             PluginCounters& counters, BrokerPort& broker, const PluginClock& clock)
    : calls_(calls), registry_(registry), schemas_(schemas), counters_(counters), broker_(broker), clock_(clock) {}

void ControlDriver::on_request(std::string_view client_id_view, const Principal& agent, std::string_view payload) {
  const std::string client_id(client_id_view);
  auto request = parse_control_request(payload);
  if (!request) {
    broker_.publish(client_id, kControlResponseTopic, control_error(request.error().id, request.error().error), 1, false);
    return;
  }
  if (const auto* command = std::get_if<ControlCommand>(&*request)) {
    const bool counters = command->command == "counters";
    const std::string body = counters ? counters_.to_json() : nodes_json(agent);
    broker_.publish(client_id, kControlResponseTopic, control_command_answer(command->id, command->command, body), 1,
                    false);
    return;
  }
  const auto& call = std::get<ControlCall>(*request);
  const std::string& id = call.id;
  // The driver's origin resolves the name it was given; the core then looks the tool up by ids.
  const auto name = parse_tool_name(call.tool);
  QueuedCall queued;
  queued.request.caller = agent.name;
  queued.request.tenant = agent.tenant;
  queued.request.origin = CallOrigin::kControl;
  queued.request.arguments_json = call.arguments_json;
  queued.control_scopes = agent.scopes;
  if (name) {
    queued.request.node_id = name->node_id;
    queued.request.cap_id = name->cap_id;
    queued.request.verb = name->verb;
    queued.request.tool = name->dotted();  // a dashed name given is canonical from here on
  }
  const std::string dotted = queued.request.tool;
  const int64_t submitted_at = clock_();
  queued.done = [this, client_id, id, dotted, node_id = queued.request.node_id, submitted_at](CallResult result) {
    const std::string answer = result ? control_call_answer(id, dotted, node_id, *result, clock_() - submitted_at)
                                      : control_error(id, result.error());
    broker_.publish(client_id, kControlResponseTopic, answer, 1, false);
  };
  // The name's kind_short must be its capability's kind; an unknown node or capability is left to
  // dispatch, which answers it like any other.
  const auto names_its_kind = [this](const ToolName& n) {
    const NodeRecord* node = registry_.find(n.node_id);
    const Capability* cap = node != nullptr && node->manifest ? node->manifest->capability(n.cap_id) : nullptr;
    const KindSpec* kind = cap != nullptr ? schemas_.kinds().by_kind(cap->kind) : nullptr;
    return kind == nullptr || kind->kind_short == n.kind_short;
  };
  bump(counters_.calls_submitted);
  if (!name || !names_its_kind(*name)) {
    // Refused as a dispatch would refuse it: counted, audited, answered.
    ErrorEnvelope error = name ? call_target_not_found(queued.request)
                               : ErrorEnvelope(ErrorCode::kBadRequest,
                                               "not a tool name: expected {kind_short}.{node_id}.{cap_id}.{verb}",
                                               "use a name from tools/list");
    calls_.refuse(std::move(queued), dotted, std::move(error));
    return;
  }
  // Already on the broker thread: the tick at the end of this loop turn dispatches it, no wake.
  calls_.submit(std::move(queued), /*wake=*/false);
}

std::string ControlDriver::nodes_json(const Principal& agent) const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  const int64_t now = clock_();
  w.StartArray();
  registry_.for_each([&](const NodeRecord& node) {
    if (node.tenant != agent.tenant) return;
    w.StartObject();
    w.Key("node_id");
    w.String(node.node_id.c_str());
    w.Key("state");
    w.String(std::string(node_state_name(node.state())).c_str());
    w.Key("tools");
    w.StartArray();
    if (node.manifest_fresh(now) && !node.revoked) {
      for (const Capability& cap : node.manifest->capabilities) {
        const KindSpec* kind = schemas_.kinds().by_kind(cap.kind);
        for (const std::string& verb : cap.verbs) {
          if (const auto name = kind ? make_tool_name(kind->kind_short, node.node_id, cap.cap_id, verb) : std::nullopt) {
            w.String(name->dotted().c_str());
          }
        }
      }
    }
    w.EndArray();
    w.EndObject();
  });
  w.EndArray();
  return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace fleetmcp::plugin

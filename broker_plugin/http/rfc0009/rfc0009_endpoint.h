// POST /mcp/tools/call (RFC-0009 §3): {"tool", "arguments"} as tools.call.request@1.0.0.
//   - sys.<id>.metrics.subscribe needs Accept: text/event-stream (else 400 E_BAD_REQUEST, §3) and
//     answers 200 with the stream of rfc0009_stream.h; every later condition is a close code.
//   - Any other tool answers 200 with its result object, or the envelope with the status of
//     docs/protocol.md §9 (error_status.h); an unknown tool (or another tenant's) is 404.
// The token is checked before (front_router.h); a scope it lacks is 403 insufficient_scope.
#pragma once

#include <memory>

#include "broker_plugin/http/transport/exchange.h"
#include "broker_plugin/http/front/front_services.h"

namespace fleetmcp::http {

class Rfc0009Endpoint {
 public:
  explicit Rfc0009Endpoint(FrontServices& services) : s_(services) {}
  void handle(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent);

 private:
  // `tool` keeps the snapshot it points into alive until the call has been audited.
  void run_unary(const std::shared_ptr<Exchange>& exchange, const SharedAgentToken& agent,
                 std::shared_ptr<const FleetTool> tool, GatePass pass);
  void open_stream(const std::shared_ptr<Exchange>& exchange, const AgentToken& agent, const FleetTool& tool,
                   const std::string& arguments_json);

  FrontServices& s_;
};

}  // namespace fleetmcp::http

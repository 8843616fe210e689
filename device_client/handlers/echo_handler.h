// system.echo (RFC-0005 §3–§4): returns the message, the device wall clock at handler entry and
// the node_id. A transport-certification tool: no hardware, no state.
#pragma once

#include <string_view>

#include "device_client/base/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kEchoKind = "system.echo";

class EchoHandler : public ToolHandler {
 public:
  explicit EchoHandler(const NodeServices& services);

  // Only the --test-hooks sleep can block; every other echo runs inline.
  bool may_block(const ToolCall& call) const override;
  Result<json::Document> run(const ToolCall& call) override;

 private:
  std::string node_id_;
  bool test_hooks_;
};

}  // namespace fleetmcp::device

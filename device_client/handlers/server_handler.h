// manage.server (Doc 05 §8.1 get_server_status, §8.2 update_server). The update itself is not
// this process's business: it starts the operator-installed systemd unit named by
// `update_unit=` (which can stop and replace this binary safely), and is refused without one.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "device_client/backends/service_control.h"
#include "device_client/commands/tool_handler.h"

namespace fleetmcp::device {

inline constexpr std::string_view kServerKind = "manage.server";

class ServerHandler : public ToolHandler {
 public:
  // `update_unit` null: self-update disabled.
  ServerHandler(const NodeServices& services, std::unique_ptr<ServiceControl> update_unit);

  json::Document run(const ToolCall& call) override;

 private:
  struct LastUpdate {
    std::string status;  // pending, running, succeeded, failed
    int64_t started_at_ms = 0;
    std::string message;
  };

  json::Document status();
  json::Document update(const json::Value& arguments);

  std::mutex mutex_;
  const NodeServices services_;
  const std::unique_ptr<ServiceControl> update_unit_;
  std::optional<LastUpdate> last_update_;
};

}  // namespace fleetmcp::device

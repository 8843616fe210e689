// manage.server (Doc 05 §8.1 get_server_status, §8.2 update_server). The update itself is not
// this process's business: invoke hands it to the packaged fleetmcp-update.service through
// SelfUpdate (device_client/update/self_update.h), and get reads its outcome back, also after the
// update restarted this process. Without `update_unit=` self-update is disabled.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "device_client/base/tool_handler.h"
#include "device_client/update/self_update.h"

namespace fleetmcp::device {

inline constexpr std::string_view kServerKind = "manage.server";

class ServerHandler : public ToolHandler {
 public:
  // `update` null: self-update disabled. `version`: the installed package's (package_version.h).
  ServerHandler(const NodeServices& services, std::unique_ptr<SelfUpdate> update, std::string version);

  Result<json::Document> run(const ToolCall& call) override;

 private:
  Result<json::Document> status();
  Result<json::Document> update(const json::Value& arguments);

  std::mutex mutex_;
  const NodeServices services_;
  const std::unique_ptr<SelfUpdate> update_;
  const std::string version_;
};

}  // namespace fleetmcp::device

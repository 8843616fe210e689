// Turns each `cmd` a node receives into exactly one `cmd_ack` (docs/protocol.md §4). In order: strict parse
// (no usable msg_id: log and drop, there is no one to answer), the idempotency cache, the
// envelope, the tool (one of this node's own), the arguments (the tool's input schema), the
// deadline (a cmd that arrives after it is refused, not run: its caller has been told it failed;
// PluginClock), the capability's max_concurrency; then a handler that may block runs on the shared worker pool while
// the TimerQueue holds its deadline, and the first of "result" or "deadline" becomes the ack (a
// result whose ack would pass kMaxCmdAckBytes becomes an "ask for fewer" error instead). A
// call that cannot block (ToolHandler::may_block) runs at once on the receiving thread instead.
// Every cmd that names one of this node's tools leaves one entry in the CommandAudit (when the node
// keeps one): run, refused or past its deadline, but not a duplicate answered from the cache.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "common/base/error.h"
#include "common/registry/schema_registry.h"
#include "common/ids/ulid.h"
#include "common/protocol/cmd.h"
#include "device_client/commands/command_audit.h"
#include "device_client/commands/idempotency_cache.h"
#include "device_client/commands/plugin_clock.h"
#include "device_client/session/timer_queue.h"
#include "device_client/commands/tool_table.h"
#include "device_client/session/worker_pool.h"

namespace fleetmcp::device {

// Validates `doc` against schema `id` (SchemaRegistry::validate in production).
using SchemaCheck = std::function<std::optional<ValidationFailure>(std::string_view id, const json::Value& doc)>;
// Publishes one cmd_ack (QoS 1 on $devices/<id>/cmd_ack).
using AckSink = std::function<void(const std::string& ack)>;

class CommandDispatcher {
 public:
  // `audit` may be null (no audit is kept).
  CommandDispatcher(std::string node_id, const ToolTable& tools, SchemaCheck schemas,
                    WorkerPool& workers, TimerQueue& timers, AckSink send_ack, CommandAudit* audit = nullptr);

  // Called on an MQTT callback thread with the raw payload; never throws, never waits for a handler
  // that may block (only calls that cannot block run on this thread).
  void on_cmd(std::string_view payload);
  // A plugin timestamp that was current when sent (its own status's since_ms), received just now:
  // what tells late cmds apart before the first cmd arrives. Any thread.
  void on_plugin_time(int64_t plugin_ms);
  // The session ended: what was learnt about the plugin's clock may not hold for the next one.
  void forget_plugin_time();

 private:
  struct Call;
  // An ack and the outcome the audit records for it: "ok" or the error code's name.
  struct Answer {
    std::string ack;
    std::string_view outcome;
  };

  // Refused: the cmd's error ack (the caller sends it); admitted: the call runs inline or is queued.
  Status admit(std::shared_ptr<Call> call);
  Result<const ToolEntry*> resolve_tool(const std::string& tool) const;
  Status check_arguments(const ToolEntry& tool, const json::Value& arguments) const;
  int64_t time_left_ms(const Call& call);
  void run(const std::shared_ptr<Call>& call);
  void run_inline(Call& call);
  ErrorEnvelope too_large(const Call& call, size_t ack_bytes) const;
  Answer deadline_ack(const Call& call);
  Answer run_handler(const Call& call);
  Result<json::Document> guarded_run(const Call& call) const;
  void on_deadline(const std::shared_ptr<Call>& call);
  bool finish(Call& call, const Answer& answer);
  void refuse(const Call& call, const ErrorEnvelope& error);
  void audit(const Call& call, std::string_view outcome);
  void send(const std::string& ack, int copies);

  const std::string node_id_;
  const ToolTable& tools_;
  const SchemaCheck schemas_;
  WorkerPool& workers_;
  TimerQueue& timers_;
  const AckSink send_ack_;
  CommandAudit* const audit_;
  IdempotencyCache cache_;
  std::mutex clock_mutex_;  // guards plugin_clock_ (cmds and status arrive on Paho's threads)
  PluginClock plugin_clock_;
  UlidGenerator ack_ids_;
};

}  // namespace fleetmcp::device

#include "device_client/commands/command_dispatcher.h"

#include <time.h>

#include <algorithm>
#include <chrono>

#include "common/protocol/cmd_ack.h"
#include "device_client/session/event_log.h"

namespace fleetmcp::device {
namespace {

int64_t mono_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The clock PluginClock learns on: monotonic (NTP never steps it) and, unlike steady_clock, still
// running while the machine is suspended, so a cmd delivered after a suspend is seen to be late.
int64_t boot_ms() {
  timespec ts{};
  clock_gettime(CLOCK_BOOTTIME, &ts);
  return int64_t(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

std::string tool_fix() {
  return "read the node's current manifest on $devices/<node_id>/announce and call a tool it lists";
}

}  // namespace

struct CommandDispatcher::Call {
  int64_t received_boot_ms = 0, received_wall_ms = 0;  // when the node read it
  ReceivedCmd cmd;
  CmdEnvelope env;
  const ToolEntry* tool = nullptr;
  int64_t deadline_ms = 0;          // effective handler deadline, relative
  int64_t deadline_at_mono_ms = 0;  // absolute, steady clock
  TimerQueue::TimerId deadline_timer{};
  std::atomic<bool> finished{false};
};

CommandDispatcher::CommandDispatcher(std::string node_id, const ToolTable& tools, SchemaCheck schemas,
                                     WorkerPool& workers, TimerQueue& timers, AckSink send_ack, CommandAudit* audit)
    : node_id_(std::move(node_id)), tools_(tools), schemas_(std::move(schemas)), workers_(workers),
      timers_(timers), send_ack_(std::move(send_ack)), audit_(audit) {}

void CommandDispatcher::on_cmd(std::string_view payload) {
  const int64_t received_boot_ms = boot_ms(), received_wall_ms = now_ms();
  auto cmd = read_cmd(payload);
  if (!cmd) {
    log_warn(node_id_, "cmd.dropped", cmd.error().message + "; no msg_id to reply to");
    return;
  }
  const auto seen = cache_.begin(cmd->msg_id, received_wall_ms);
  if (seen.seen == IdempotencyCache::Seen::kDone) {
    log_info(node_id_, "cmd.duplicate", "msg_id=" + cmd->msg_id + " answered from the cache, not run again");
    send(seen.ack, 1);
    return;
  }
  if (seen.seen == IdempotencyCache::Seen::kInFlight) {
    log_info(node_id_, "cmd.duplicate", "msg_id=" + cmd->msg_id + " still running; it gets the same ack");
    return;
  }
  auto call = std::make_shared<Call>();
  call->received_boot_ms = received_boot_ms;
  call->received_wall_ms = received_wall_ms;
  call->cmd = std::move(*cmd);
  // Every refusal becomes this cmd's ack.
  if (Status admitted = admit(call); !admitted) refuse(*call, admitted.error());
}

Status CommandDispatcher::admit(std::shared_ptr<Call> call) {
  auto env = check_cmd_envelope(call->cmd);
  if (!env) return std::move(env).error();
  call->env = std::move(env).value();
  auto tool = resolve_tool(call->env.tool);
  if (!tool) return std::move(tool).error();
  call->tool = *tool;
  if (Status valid = check_arguments(*call->tool, *call->env.arguments); !valid) return valid;
  const int64_t left_ms = time_left_ms(*call);
  if (left_ms <= 0) {
    log_warn(node_id_, "cmd.late", "msg_id=" + call->cmd.msg_id + " tool=" + call->env.tool + " arrived at least " +
                                       std::to_string(-left_ms) + " ms after its deadline; not run");
    return ErrorEnvelope(ErrorCode::kDeadlineExceeded,
                         std::string(kNotRunPrefix) + " the cmd arrived at least " + std::to_string(-left_ms) +
                             " ms after its deadline (ts_ms + deadline_ms on the plugin's clock)",
                         "nothing was run; send a new call if it is still wanted");
  }
  // The handler gets its own deadline, or less when the caller has less patience left.
  call->deadline_ms = std::min({int64_t{call->tool->constraints.deadline_ms_default}, call->env.deadline_ms, left_ms});
  call->deadline_at_mono_ms = mono_ms() + call->deadline_ms;
  const auto admission = call->tool->limit->try_acquire(call->deadline_at_mono_ms, mono_ms());
  if (!admission.admitted) {
    ErrorEnvelope busy(ErrorCode::kRateLimited,
                       "capability is busy: max_concurrency of " +
                           std::to_string(call->tool->constraints.max_concurrency) + " calls already running",
                       "retry after retry_after_ms");
    busy.retry_after_ms = admission.retry_after_ms;
    return busy;
  }
  if (!call->tool->handler->may_block({call->tool->verb, *call->env.arguments})) {
    run_inline(*call);
    return {};
  }
  call->deadline_timer = timers_.after(std::chrono::milliseconds(call->deadline_ms),
                                       [this, call] { on_deadline(call); });
  workers_.submit([this, call] { run(call); });
  return {};
}

// A call that cannot block runs here, on the thread that received the cmd: no worker hand-off and
// no deadline timer (adding and cancelling one per command woke the timer thread each time). It
// finishes in microseconds, so its deadline is checked when it returns: a result that came too
// late is answered E_DEADLINE_EXCEEDED, as the timer would have answered it.
void CommandDispatcher::run_inline(Call& call) {
  Answer answer = run_handler(call);
  call.tool->limit->release(call.deadline_at_mono_ms);
  if (mono_ms() > call.deadline_at_mono_ms) {
    log_warn(node_id_, "cmd.deadline_exceeded", "msg_id=" + call.cmd.msg_id + " tool=" + call.env.tool);
    answer = deadline_ack(call);
  }
  finish(call, answer);
}

Result<const ToolEntry*> CommandDispatcher::resolve_tool(const std::string& tool) const {
  if (const ToolEntry* entry = tools_.find(tool)) return entry;
  const auto name = parse_tool_name(tool);
  if (name && name->node_id != node_id_) {
    return ErrorEnvelope(ErrorCode::kBadRequest, "payload.tool belongs to another node, not to this one",
                         "publish the cmd on $devices/<node_id>/cmd of the node the tool name carries");
  }
  if (name && tools_.has_capability(name->kind_short, name->cap_id)) {
    return ErrorEnvelope(ErrorCode::kVerbUnsupported, "this capability has no such verb", tool_fix());
  }
  return ErrorEnvelope(ErrorCode::kBadRequest, "payload.tool is not one of this node's tools", tool_fix());
}

Status CommandDispatcher::check_arguments(const ToolEntry& tool, const json::Value& arguments) const {
  const auto failure = schemas_(tool.input_schema, arguments);
  if (!failure) return {};
  // RFC-0005 §8: invalid arguments are E_MANIFEST_INVALID (no E_INVALID_ARGS exists).
  return ErrorEnvelope(ErrorCode::kManifestInvalid,
                       "arguments do not match " + tool.input_schema + " at '" + failure->path + "': " + failure->for_sender(),
                       failure->fix_for_sender("correct the arguments to match the tool's inputSchema"));
}

// docs/protocol.md §4.3 step 5: at most this much of the cmd's deadline is left on the plugin's clock.
// The cmd's own ts_ms is a sample too; alone it only says the plugin's clock is past ts_ms, so it
// never makes this cmd late (deadline_ms >= 1), but it may show a later one to be.
int64_t CommandDispatcher::time_left_ms(const Call& call) {
  std::lock_guard lock(clock_mutex_);
  plugin_clock_.observe(call.env.ts_ms, call.received_boot_ms);
  return call.env.ts_ms + call.env.deadline_ms - plugin_clock_.earliest_now(call.received_boot_ms, call.received_wall_ms);
}

void CommandDispatcher::on_plugin_time(int64_t plugin_ms) {
  const int64_t received = boot_ms();
  std::lock_guard lock(clock_mutex_);
  plugin_clock_.observe(plugin_ms, received);
}

void CommandDispatcher::forget_plugin_time() {
  std::lock_guard lock(clock_mutex_);
  plugin_clock_.reset();
}

void CommandDispatcher::run(const std::shared_ptr<Call>& call) {
  if (call->finished.load()) {
    // Its deadline passed while it waited for a worker: running it now would help no one.
    call->tool->limit->release(call->deadline_at_mono_ms);
    return;
  }
  const int64_t started = mono_ms();
  const Answer answer = run_handler(*call);
  call->tool->limit->release(call->deadline_at_mono_ms);  // before the ack: the caller may send more
  timers_.cancel(call->deadline_timer);
  if (finish(*call, answer)) {
    if (log_enabled(EventLogLevel::kDebug)) {  // not even the line's text unless it is logged
      log_debug(node_id_, "cmd.done", "msg_id=" + call->cmd.msg_id + " tool=" + call->env.tool +
                                          " ms=" + std::to_string(mono_ms() - started));
    }
  } else {
    log_warn(node_id_, "cmd.late_result_dropped",
             "msg_id=" + call->cmd.msg_id + " finished after its deadline; E_DEADLINE_EXCEEDED was sent");
  }
}

CommandDispatcher::Answer CommandDispatcher::run_handler(const Call& call) {
  const ToolEntry& tool = *call.tool;
  const Result<json::Document> outcome = guarded_run(call);
  if (!outcome) {
    const ErrorEnvelope& refused = outcome.error();
    return {error_ack(ack_ids_.next_upper(), call.cmd.msg_id, refused), error_code_name(refused.code)};
  }
  const json::Document& result = *outcome;
  if (const auto failure = schemas_(tool.output_schema, result)) {
    log_error(node_id_, "cmd.bad_result", tool.output_schema + " at " + failure->path + ": " + failure->message);
    const ErrorEnvelope bad(ErrorCode::kInternal,
                            reasoned_message(DeviceReason::kInternal,
                                             "the device produced a result that does not match " + tool.output_schema),
                            "escalate to the operator: the device software needs fixing");
    return {error_ack(ack_ids_.next_upper(), call.cmd.msg_id, bad), error_code_name(bad.code)};
  }
  std::string ack = ok_ack(ack_ids_.next_upper(), call.cmd.msg_id, result);
  if (ack.size() > kMaxCmdAckBytes) {
    const ErrorEnvelope too_big = too_large(call, ack.size());
    return {error_ack(ack_ids_.next_upper(), call.cmd.msg_id, too_big), error_code_name(too_big.code)};
  }
  return {std::move(ack), "ok"};
}

// The handler boundary. A refusal comes back as a value; what can still escape a handler
// (std::bad_alloc, a std::filesystem or RapidJSON exception, value() on a bug) is this call's
// outcome, never the process's, and its text stays in the local log.
Result<json::Document> CommandDispatcher::guarded_run(const Call& call) const {
  try {
    return call.tool->handler->run({call.tool->verb, *call.env.arguments});
  } catch (const std::exception& e) {
    log_error(node_id_, "cmd.handler_failed", e.what());  // local log only; never in the envelope
    return ErrorEnvelope(ErrorCode::kInternal, reasoned_message(DeviceReason::kInternal, "the tool failed on the device"),
                         "retry once; if it fails again, escalate to the operator");
  }
}

// The last guard of issue 33 item 3: the plugin drops an ack past kMaxCmdAckBytes (its caller
// waits for the deadline) and the broker disconnects a node that sends one past max_packet_size.
// Handlers bound what grows (kMaxResultBytes); anything still too large is refused here, never sent.
ErrorEnvelope CommandDispatcher::too_large(const Call& call, size_t ack_bytes) const {
  log_warn(node_id_, "cmd.result_too_large", "msg_id=" + call.cmd.msg_id + " tool=" + call.env.tool +
                                                 " ack_bytes=" + std::to_string(ack_bytes));
  return ErrorEnvelope(ErrorCode::kBadRequest,
                       reasoned_message(DeviceReason::kResourceExhausted,
                                        "the result is " + std::to_string(ack_bytes) + " bytes, more than the " +
                                            std::to_string(kMaxCmdAckBytes) + " one answer may carry"),
                       "ask for fewer: a smaller limit, a narrower filter, or the next page");
}

CommandDispatcher::Answer CommandDispatcher::deadline_ack(const Call& call) {
  const ErrorEnvelope error(ErrorCode::kDeadlineExceeded,
                            "the tool did not finish within its deadline of " +
                                std::to_string(call.deadline_ms) + " ms",
                            "retry later; if it keeps happening, escalate to the operator");
  return {error_ack(ack_ids_.next_upper(), call.cmd.msg_id, error), error_code_name(error.code)};
}

void CommandDispatcher::on_deadline(const std::shared_ptr<Call>& call) {
  if (finish(*call, deadline_ack(*call))) {
    log_warn(node_id_, "cmd.deadline_exceeded", "msg_id=" + call->cmd.msg_id + " tool=" + call->env.tool);
  }
}

// First caller wins: the handler's result or the deadline. The ack is cached before it is sent,
// so a duplicate arriving in between is answered from the cache, never run.
bool CommandDispatcher::finish(Call& call, const Answer& answer) {
  if (call.finished.exchange(true)) return false;
  const int duplicates = cache_.complete(call.cmd.msg_id, answer.ack, now_ms());
  audit(call, answer.outcome);
  send(answer.ack, 1 + duplicates);
  return true;
}

void CommandDispatcher::refuse(const Call& call, const ErrorEnvelope& error) {
  const std::string& msg_id = call.cmd.msg_id;
  const std::string ack = error_ack(ack_ids_.next_upper(), msg_id, error);
  log_info(node_id_, "cmd.refused", "msg_id=" + msg_id + " code=" + std::string(error_code_name(error.code)));
  // A busy refusal ran nothing; the retry it invites deserves a fresh decision, not this ack.
  const int duplicates = error.code == ErrorCode::kRateLimited ? cache_.forget(msg_id)
                                                               : cache_.complete(msg_id, ack, now_ms());
  audit(call, error_code_name(error.code));
  send(ack, 1 + duplicates);
}

// Before the ack is sent, so a caller that has its answer finds the call in the audit (the cost:
// one append of a short line). A cmd that named no tool of this node (malformed, another node's)
// is in the event log only: it has no cap_id.
void CommandDispatcher::audit(const Call& call, std::string_view outcome) {
  if (audit_ == nullptr || call.tool == nullptr || !audit_->enabled()) return;
  audit_->record({0, call.received_wall_ms, call.cmd.msg_id, call.tool->name.cap_id, call.tool->verb,
                  std::string(outcome), std::max<int64_t>(0, boot_ms() - call.received_boot_ms),
                  is_actuation(call.tool->handler->safety_class(), call.tool->verb)});
}

void CommandDispatcher::send(const std::string& ack, int copies) {
  for (int i = 0; i < copies; ++i) send_ack_(ack);
}

}  // namespace fleetmcp::device

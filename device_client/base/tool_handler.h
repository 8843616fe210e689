// The one interface between the transport and what a capability does. The dispatcher has already
// checked the tool name, validated `arguments` against the verb's input schema, taken a
// concurrency slot and started the deadline clock; a handler only computes its result. New kinds
// (the Doc 05 catalogue) are new ToolHandlers registered in a HandlerCatalogue; nothing in the
// MQTT or dispatch code changes.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/base/json.h"
#include "common/base/result.h"
#include "common/registry/kinds.h"

namespace fleetmcp::device {

class CommandAudit;
class HostMetrics;
class TelemetryCadence;
class TimerQueue;

// What a node offers its handlers.
struct NodeServices {
  std::string node_id;
  HostMetrics* host_metrics = nullptr;       // shared by every node of the process
  TelemetryCadence* telemetry = nullptr;     // this node's telemetry cadence
  std::function<void()> telemetry_changed;   // call after changing the cadence
  bool test_hooks = false;                   // --test-hooks (docs/device-client.md)
  // For the Doc 05 catalogue (docs/catalogue.md):
  TimerQueue* timers = nullptr;              // shared; GPIO duration_ms reverts run on it
  bool simulated = false;                    // --simulate: hardware kinds default to simulated backends
  int64_t started_at_ms = 0;                 // when this process started (manage.server)
  size_t capability_count = 0;               // configured capabilities (manage.server)
  CommandAudit* audit = nullptr;             // this node's audit; a logs.audit capability turns it on
};

struct ToolCall {
  std::string_view verb;
  const json::Value& arguments;  // valid against the verb's input schema
};

class ToolHandler {
 public:
  // What the handler declares in the manifest: its safety class and the verbs it serves (a subset
  // of the kind's verbs, in the kind registry).
  ToolHandler(SafetyClass safety_class, std::vector<std::string> verbs)
      : safety_class_(safety_class), verbs_(std::move(verbs)) {}
  virtual ~ToolHandler() = default;

  SafetyClass safety_class() const { return safety_class_; }
  const std::vector<std::string>& verbs() const { return verbs_; }
  // What the capability is on this device, for its manifest `label` ("BCM 17, output",
  // "nginx.service"); "" = none. Set once, by the factory that read the capability's settings.
  const std::string& label() const { return label_; }
  void set_label(std::string label) { label_ = std::move(label); }

  // False when this call cannot block (no hardware, no I/O, no sleep: it finishes in microseconds).
  // Such a call runs at once on the thread that received the cmd, without a worker or a deadline
  // timer: two thread hand-offs fewer per command (docs/device-client.md, Performance). Anything
  // that may wait (GPIO edges, the camera, /proc and statvfs reads, another process) keeps the
  // default and runs on the worker pool under its deadline, so it never stalls MQTT I/O.
  virtual bool may_block(const ToolCall&) const { return true; }

  // Runs on a shared worker thread (or inline, see may_block). Returns the result object (the
  // dispatcher validates it against the verb's output schema) or the envelope that becomes the
  // cmd_ack's error; a refusal is a value, never a throw (docs/CONTRIBUTING.md "Errors").
  // Messages must be templated ASCII: never device strings (RFC-0001 decision #7).
  virtual Result<json::Document> run(const ToolCall& call) = 0;

 private:
  const SafetyClass safety_class_;
  const std::vector<std::string> verbs_;
  std::string label_;
};

}  // namespace fleetmcp::device

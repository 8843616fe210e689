// A TelemetrySubscriber double that counts the samples it gets and records why its feed ended.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "broker_plugin/http/streams/telemetry_fanout.h"
#include "common/base/error.h"
#include "common/base/json.h"

namespace fleetmcp::http::testing {

struct Recorder : TelemetrySubscriber {
  int samples = 0;
  std::optional<std::string> ended;
  void on_sample(std::shared_ptr<const json::Document>) override { ++samples; }
  void on_feed_end(const ErrorEnvelope& why) override { ended = std::string(error_code_name(why.code)); }
};

}  // namespace fleetmcp::http::testing

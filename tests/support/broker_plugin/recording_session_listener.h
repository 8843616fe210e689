// A SessionListener that keeps what a session sends to its stream, in order (unit tests of what
// reaches a GET or listen stream).
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "broker_plugin/http/mcp/mcp_session.h"

namespace fleetmcp::testing {

class RecordingSessionListener : public http::SessionListener {
 public:
  void notify(std::string message_json) override {
    std::lock_guard<std::mutex> lock(mutex_);
    messages_.push_back(std::move(message_json));
  }
  void close() override { closed_ = true; }
  std::vector<std::string> messages() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_;
  }
  bool closed() const { return closed_; }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
  bool closed_ = false;
};

}  // namespace fleetmcp::testing

// A GpioLine double that records what was written to it.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "device_client/backends/gpio_line.h"

namespace fleetmcp::device::testing {

class RecordingLine : public GpioLine {
 public:
  explicit RecordingLine(std::shared_ptr<std::vector<bool>> writes) : writes_(std::move(writes)) {}
  Result<PinState> read() override {
    return PinState{PinMode::kOutput, writes_->empty() ? false : writes_->back(), PinPull::kNone};
  }
  Status configure(PinMode, PinPull) override { return {}; }
  Status write(bool high) override {
    writes_->push_back(high);
    return {};
  }

 private:
  std::shared_ptr<std::vector<bool>> writes_;
};

}  // namespace fleetmcp::device::testing

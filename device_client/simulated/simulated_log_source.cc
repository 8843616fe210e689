// A synthetic journal: one entry per second for the last hour, computed on the fly (nothing is
// stored, so a thousand simulated nodes cost nothing), with a fixed cycle of levels so filters
// have something to find. `message_bytes` pads each message to that length, to test what long
// lines cost (a page of them is larger than a cmd_ack may carry, issue 33 item 3).
#include <algorithm>

#include "common/ids/ulid.h"
#include "device_client/backends/log_source.h"

namespace fleetmcp::device {
namespace {

constexpr int kEntries = 3600;
constexpr int kPriorities[] = {6, 6, 7, 6, 4, 6, 5, 3};

class SimulatedLogSource : public LogSource {
 public:
  SimulatedLogSource(std::vector<std::string> units, size_t message_bytes)
      : units_(std::move(units)), message_bytes_(message_bytes) {
    if (units_.empty()) units_.push_back("fleetmcp-device.service");
  }

  Result<LogPage> query(const LogQuery& q) override {
    const int64_t newest = now_ms() / 1000 * 1000;
    int i = 0;
    if (q.until_ms && *q.until_ms < newest) i = static_cast<int>((newest - *q.until_ms + 999) / 1000);
    return page_newest_first(q, [&]() -> std::optional<LogEntry> {
      if (i >= kEntries) return std::nullopt;
      const int64_t seq = newest / 1000 - i;  // stable per second, so pages line up across calls
      LogEntry e;
      e.ts_ms = newest - static_cast<int64_t>(i) * 1000;
      e.priority = kPriorities[seq % 8];
      e.unit = units_[static_cast<size_t>(seq) % units_.size()];
      e.message = "simulated " + std::string(level_name(e.priority)) + " event " + std::to_string(seq);
      if (e.message.size() < message_bytes_) e.message.resize(message_bytes_, '.');
      ++i;
      return e;
    });
  }

 private:
  std::vector<std::string> units_;
  size_t message_bytes_;
};

}  // namespace

std::unique_ptr<LogSource> make_simulated_log_source(std::vector<std::string> units, size_t message_bytes) {
  return std::make_unique<SimulatedLogSource>(std::move(units), std::min(message_bytes, kMaxMessage));
}

}  // namespace fleetmcp::device

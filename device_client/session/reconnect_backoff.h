// Delays between reconnection attempts: exponential with "full jitter" (uniform in
// [0, min(max, min·2^n)]). After a broker restart a thousand nodes therefore come back spread over
// the first window (2 s by default) instead of in one burst, and spread wider the longer the
// broker stays away.
#pragma once

#include <cstdint>
#include <random>

namespace fleetmcp::device {

class ReconnectBackoff {
 public:
  ReconnectBackoff(int64_t min_ms, int64_t max_ms, uint64_t seed);

  int64_t next_delay_ms();  // and counts the attempt
  void reset() { attempt_ = 0; }
  int attempt() const { return attempt_; }
  // The upper bound the next delay is drawn under (tests, logs).
  int64_t ceiling_ms() const;

 private:
  int64_t min_ms_, max_ms_;
  int attempt_ = 0;
  std::mt19937_64 random_;
};

}  // namespace fleetmcp::device

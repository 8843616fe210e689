// Whether a node started with --wait-for-time-sync may open its connections yet. A Raspberry Pi
// has no real-time clock: until NTP answers it runs in the past, and its TLS handshakes ("not yet
// valid") and signed manifests (docs/protocol.md §6.1 check 4) fail, and loading the node's
// bundle refuses a certificate outside its validity period. So main() looks at the clock once a
// second before it loads anything, and goes on at the first look that finds it synchronised; meanwhile it says
// in the journal that it waits and why, once at first and again every `remind_every`, so a Pi that
// never reaches NTP says so without filling the journal (docs/pi-image.md "The clock").
#pragma once

#include <chrono>
#include <optional>

namespace fleetmcp::device {

class TimeSyncWait {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Step {
    kConnect,      // synchronised: open the connections now
    kSayWaiting,   // not yet: log that the node waits, look again later
    kKeepWaiting,  // not yet, said recently: look again later
  };

  explicit TimeSyncWait(std::chrono::seconds remind_every) : remind_every_(remind_every) {}

  // One look: `synchronized` is what the system says of its clock now.
  Step look(bool synchronized, Clock::time_point now);
  // How long the node has waited, from the first look that found the clock unsynchronised.
  std::chrono::seconds waited(Clock::time_point now) const;

 private:
  std::chrono::seconds remind_every_;
  std::optional<Clock::time_point> first_look_, said_at_;
};

}  // namespace fleetmcp::device

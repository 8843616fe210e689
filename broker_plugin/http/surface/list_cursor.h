// Opaque pagination cursors (MCP tools/list, RFC 004 §6.5 for GET /schemas). A cursor names the
// last item of the page it ends, so the next page starts strictly after it: pages never repeat
// or skip an item of a consistent snapshot and never fail to advance. It is MACed with a key
// made at start-up and bound to its query context (list and order), so a forged, altered or
// foreign cursor is rejected as invalid rather than silently misread.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace fleetmcp::http {

class CursorCodec {
 public:
  CursorCodec();  // a fresh random key
  std::string encode(std::string_view context, std::string_view last_item) const;
  // The last item, or nullopt when the cursor was not made by this codec for `context`.
  std::optional<std::string> decode(std::string_view context, std::string_view cursor) const;

 private:
  std::array<unsigned char, 32> key_{};
};

}  // namespace fleetmcp::http

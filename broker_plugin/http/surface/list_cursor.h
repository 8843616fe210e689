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

#include "common/base/json.h"
#include "common/base/result.h"

namespace fleetmcp::http {

class CursorCodec {
 public:
  CursorCodec();  // a fresh random key
  std::string encode(std::string_view context, std::string_view last_item) const;
  // The last item, or nullopt when the cursor was not made by this codec for `context`.
  std::optional<std::string> decode(std::string_view context, std::string_view cursor) const;
  // The last item the `cursor` param of a list request names: nullopt when there is none, and
  // E_BAD_REQUEST when it is not a string this codec made for `context` (RFC 004 A.15).
  Result<std::optional<std::string>> last_item(std::string_view context, const json::Value* cursor) const;

 private:
  std::array<unsigned char, 32> key_{};
};

}  // namespace fleetmcp::http

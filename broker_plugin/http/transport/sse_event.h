// Server-Sent Events framing (WHATWG HTML §9.2): "event:", "id:" and "data:" lines ended by a
// blank line. A value with line breaks becomes several data: lines, so a JSON text can never end
// an event early or inject a field.
#pragma once

#include <string>
#include <string_view>

namespace fleetmcp::http {

// One event. `event` and `id` must not contain line breaks (they are server constants or ids).
std::string sse_event(std::string_view event, std::string_view data, std::string_view id = {});
// A comment line (": text"), which clients ignore: keeps idle intermediaries from closing.
std::string sse_comment(std::string_view text);

}  // namespace fleetmcp::http

// Content negotiation on the few media types the front speaks: does an Accept header admit a type
// (wildcards and parameters understood, q=0 meaning "not acceptable"), and is a Content-Type JSON.
#pragma once

#include <optional>
#include <string_view>

namespace fleetmcp::http {

// "type/subtype", lowercase. An absent header accepts nothing here: the endpoints that care
// require the client to say what it takes.
bool accepts(std::optional<std::string_view> accept_header, std::string_view type);
// The header names `type` itself (no wildcard), not refused with q=0: RFC-0009 §3 requires the
// client to ask for text/event-stream, and curl's default "*/*" is not asking.
bool names(std::optional<std::string_view> accept_header, std::string_view type);
bool is_json_content_type(std::optional<std::string_view> content_type);

}  // namespace fleetmcp::http

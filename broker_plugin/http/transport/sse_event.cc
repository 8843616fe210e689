#include "broker_plugin/http/transport/sse_event.h"

namespace fleetmcp::http {
namespace {

// Splits on CRLF, CR or LF, as an SSE parser would.
void append_data_lines(std::string_view data, std::string& out) {
  size_t start = 0;
  for (size_t i = 0; i <= data.size(); ++i) {
    const bool end = i == data.size();
    if (!end && data[i] != '\n' && data[i] != '\r') continue;
    out += "data: ";
    out.append(data.substr(start, i - start));
    out += '\n';
    if (!end && data[i] == '\r' && i + 1 < data.size() && data[i + 1] == '\n') ++i;
    start = i + 1;
  }
}

}  // namespace

std::string sse_event(std::string_view event, std::string_view data, std::string_view id) {
  std::string out;
  out.reserve(event.size() + data.size() + id.size() + 24);
  if (!event.empty()) {
    out += "event: ";
    out.append(event);
    out += '\n';
  }
  if (!id.empty()) {
    out += "id: ";
    out.append(id);
    out += '\n';
  }
  append_data_lines(data, out);
  out += '\n';
  return out;
}

std::string sse_comment(std::string_view text) {
  std::string out = ": ";
  out.append(text);
  out += "\n\n";
  return out;
}

}  // namespace fleetmcp::http

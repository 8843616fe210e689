#include "broker_plugin/http/base/media_type.h"

#include "common/base/text.h"

namespace fleetmcp::http {
namespace {

// HTTP optional whitespace (RFC 9110 §5.6.3); a header value holds no CR or LF.
constexpr std::string_view kOws = " \t";

// "q=0" (or 0.0…) among a media range's parameters.
bool refused(std::string_view params) {
  while (!params.empty()) {
    const size_t semi = params.find(';');
    const std::string_view p = trim(params.substr(0, semi), kOws);
    params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
    if (ascii_iequals(p.substr(0, 2), "q=") && p.find_first_not_of("0.", 2) == std::string_view::npos) return true;
  }
  return false;
}

// `type` is lowercase; the range is as the client wrote it.
bool range_matches(std::string_view range, std::string_view type) {
  if (range == "*/*" || ascii_iequals(range, type)) return true;
  const size_t slash = type.find('/');
  return range.size() == slash + 2 && ascii_iequals(range.substr(0, slash + 1), type.substr(0, slash + 1)) &&
         range.back() == '*';
}

// Each media range of an Accept header that is not refused, without parameters.
template <typename Match>
bool any_range(std::optional<std::string_view> header, Match match) {
  if (!header) return false;
  std::string_view rest = *header;
  while (!rest.empty()) {
    const size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const size_t semi = item.find(';');
    const std::string_view range = trim(item.substr(0, semi), kOws);
    if (match(range) && !(semi != std::string_view::npos && refused(item.substr(semi + 1)))) return true;
  }
  return false;
}

}  // namespace

bool accepts(std::optional<std::string_view> header, std::string_view type) {
  return any_range(header, [&](std::string_view range) { return range_matches(range, type); });
}

bool names(std::optional<std::string_view> header, std::string_view type) {
  return any_range(header, [&](std::string_view range) { return ascii_iequals(range, type); });
}

bool is_json_content_type(std::optional<std::string_view> content_type) {
  if (!content_type) return false;
  return ascii_iequals(trim(content_type->substr(0, content_type->find(';')), kOws), "application/json");
}

}  // namespace fleetmcp::http

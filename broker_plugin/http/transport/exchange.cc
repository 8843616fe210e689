#include "broker_plugin/http/transport/exchange.h"

#include <algorithm>
#include <cctype>

#include "common/base/text.h"

namespace fleetmcp::http {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// application/x-www-form-urlencoded value decoding; a malformed escape is kept as written.
std::string percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 && hex_value(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

}  // namespace

std::optional<std::string_view> HttpRequest::header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    // The length first: most names differ in it, and the call costs more than the test.
    if (key.size() == name.size() && ascii_iequals(key, name)) return std::string_view(value);
  }
  return std::nullopt;
}

std::string_view HttpRequest::path() const {
  const std::string_view t(target);
  return t.substr(0, t.find('?'));
}

std::string_view HttpRequest::query() const {
  const std::string_view t(target);
  const size_t q = t.find('?');
  return q == std::string_view::npos ? std::string_view{} : t.substr(q + 1);
}

std::optional<std::string> HttpRequest::query_param(std::string_view name) const {
  std::string_view rest = query();
  while (!rest.empty()) {
    const size_t amp = rest.find('&');
    const std::string_view pair = rest.substr(0, amp);
    rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
    const size_t eq = pair.find('=');
    if (percent_decode(pair.substr(0, eq)) != name) continue;
    return eq == std::string_view::npos ? std::string{} : percent_decode(pair.substr(eq + 1));
  }
  return std::nullopt;
}

HttpReply HttpReply::json(int status, std::string body) {
  HttpReply r;
  r.status = status;
  r.body = std::move(body);
  r.headers.emplace_back("Content-Type", "application/json");
  return r;
}

HttpReply HttpReply::empty(int status) {
  HttpReply r;
  r.status = status;
  return r;
}

}  // namespace fleetmcp::http

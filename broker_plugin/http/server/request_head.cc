#include "broker_plugin/http/server/request_head.h"

#include <algorithm>
#include <iterator>

#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>

#include "broker_plugin/http/transport/error_status.h"

namespace fleetmcp::http {
namespace {

namespace beast = boost::beast;
namespace bhttp = boost::beast::http;

constexpr uint64_t kScreenBodiesAbove = 16 * 1024;

std::string_view std_view(beast::string_view s) { return {s.data(), s.size()}; }  // Beast 1.74's is Boost's

// A request Beast could not parse, or one this front refuses to read on (obs-fold, Host): 400
// with what is wrong, so the client sees more than a closed connection.
HttpReply malformed_reply(std::string_view what) {
  return envelope_reply(400, ErrorEnvelope(ErrorCode::kBadRequest, "malformed request: " + std::string(what),
                                           "send a well-formed HTTP/1.1 request (RFC 9112)"));
}

HttpReply body_too_large() {
  return envelope_reply(413, ErrorEnvelope(ErrorCode::kBadRequest, "request body too large",
                                           "send at most plugin_opt_http_max_body_bytes bytes"));
}

// Beast's errors for bytes that are not HTTP (as opposed to a client that went away or a limit).
bool is_malformed(const beast::error_code& ec) {
  if (!ec || ec.category() != bhttp::make_error_code(bhttp::error::bad_method).category()) return false;
  switch (static_cast<bhttp::error>(ec.value())) {
    case bhttp::error::bad_line_ending:
    case bhttp::error::bad_method:
    case bhttp::error::bad_target:
    case bhttp::error::bad_version:
    case bhttp::error::bad_field:
    case bhttp::error::bad_value:
    case bhttp::error::bad_content_length:
    case bhttp::error::bad_transfer_encoding:
    case bhttp::error::bad_chunk:
    case bhttp::error::bad_chunk_extension:
    case bhttp::error::bad_obs_fold:
      return true;
    default:
      return false;
  }
}

// Obsolete line folding (a header line that starts with a space or tab) in a request head. Beast
// 1.74 unfolds it silently; RFC 9112 §5.2 lets a server refuse it instead, which this front does:
// folded values are a request-smuggling vector between parsers that disagree about them.
bool has_obs_fold(std::string_view head) {
  for (size_t nl = head.find('\n'); nl != std::string_view::npos && nl + 1 < head.size(); nl = head.find('\n', nl + 1)) {
    if (head[nl + 1] == ' ' || head[nl + 1] == '\t') return true;
  }
  return false;
}

}  // namespace

RequestHead::Clock::time_point RequestHead::connection_started(Clock::time_point now) {
  started_ = now;
  return started_ + std::min(settings_.header_timeout, settings_.read_timeout);
}

std::optional<RequestHead::Clock::time_point> RequestHead::next_request() {
  parser_.emplace();
  parser_->body_limit(settings_.max_body_bytes);
  parser_->header_limit(static_cast<uint32_t>(settings_.max_header_bytes));
  partial_ = false;
  authorization_.reset();
  // The next request on a kept-alive connection, headers and body, within the read timeout of the
  // last answer; the first one's deadline was set when the connection started.
  if (std::exchange(first_, false)) return std::nullopt;
  started_ = Clock::now();
  return started_ + settings_.read_timeout;
}

std::optional<RequestHead::Clock::time_point> RequestHead::partial() {
  // A head that came whole in its first read, nearly every request, never gets here and moves no
  // timer.
  if (std::exchange(partial_, true)) return std::nullopt;
  return Clock::now() + settings_.header_timeout;
}

Result<RequestHead::Progress, HttpReply> RequestHead::parse(beast::flat_buffer& buffer) {
  beast::error_code ec;
  const auto data = buffer.data();
  const size_t used = parser_->put(data, ec);
  if (ec == bhttp::error::need_more) {
    buffer.consume(used);
    return Progress::kNeedMore;
  }
  const bool folded = !ec && has_obs_fold(std::string_view(static_cast<const char*>(data.data()), used));
  buffer.consume(used);
  if (ec == bhttp::error::header_limit) {
    return envelope_reply(431, ErrorEnvelope(ErrorCode::kBadRequest,
                                             "request header fields too large: the request head is over " +
                                                 std::to_string(settings_.max_header_bytes) + " bytes",
                                             "send a shorter request head (a shorter token); the operator may raise "
                                             "plugin_opt_http_max_header_bytes"));
  }
  if (ec == bhttp::error::body_limit) return body_too_large();  // a Content-Length over the limit
  if (ec) return malformed_reply(ec.message());
  if (folded) return malformed_reply("a header field is folded over two lines (obs-fold, RFC 9112 section 5.2)");
  if (auto refusal = check_fields()) return std::move(*refusal);
  return Progress::kWhole;
}

std::optional<HttpReply> RequestHead::check_fields() {
  const auto& head = parser_->get();
  // One pass over the fields (a handful, compared by Beast's field enum) rather than a lookup by
  // name for each: this runs for every request.
  std::optional<std::string_view> host;
  size_t hosts = 0;
  for (const auto& field : head) {
    if (field.name() == bhttp::field::host) ++hosts, host = std_view(field.value());
    else if (field.name() == bhttp::field::authorization) authorization_ = std_view(field.value());
  }
  if (!settings_.hosts) return std::nullopt;
  // RFC 9112 §3.2: one Host, required in HTTP/1.1; a name this front does not serve is a
  // DNS-rebinding page's request (host_policy.h): 421, RFC 9110 §7.4.
  if (hosts > 1) return malformed_reply("more than one Host header");
  if (hosts == 0 && head.version() >= 11) return malformed_reply("no Host header (HTTP/1.1 requires one)");
  // A kept-alive connection names the same Host on every request: the one that passed last is
  // compared byte for byte instead of being checked again.
  if (!host || *host == accepted_host_) return std::nullopt;
  switch (settings_.hosts->check(*host)) {
    case HostPolicy::Verdict::kAllowed: accepted_host_ = *host; break;
    case HostPolicy::Verdict::kMalformed: return malformed_reply("the Host header is not host[:port]");
    case HostPolicy::Verdict::kNotOurs:
      return envelope_reply(421, ErrorEnvelope(ErrorCode::kBadRequest,
                                               "misdirected request: this front does not serve that Host",
                                               "reach the front by a name it serves (localhost, its listen "
                                               "address); the operator lists others in plugin_opt_http_allowed_hosts"));
  }
  return std::nullopt;
}

std::optional<HttpReply> RequestHead::body_refusal(const beast::error_code& ec) {
  if (ec == bhttp::error::body_limit) return body_too_large();
  if (is_malformed(ec)) return malformed_reply(ec.message());  // a bad chunk
  return std::nullopt;
}

bool RequestHead::large_body() const {
  return !parser_->is_done() && (parser_->chunked() || parser_->content_length().value_or(0) > kScreenBodiesAbove);
}

HttpRequest RequestHead::request(bool with_body) {
  auto& message = parser_->get();
  HttpRequest out;
  out.method = std::string(message.method_string());
  out.target = std::string(message.target());
  out.headers.reserve(static_cast<size_t>(std::distance(message.begin(), message.end())));
  for (const auto& field : message) out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  if (with_body) out.body = std::move(message.body());  // the next request gets a new parser
  return out;
}

}  // namespace fleetmcp::http

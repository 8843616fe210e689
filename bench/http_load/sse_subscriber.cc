#include "bench/http_load/sse_subscriber.h"

#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include "bench/load_clock.h"
#include "common/base/json.h"

namespace fleetmcp::bench {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// The ts_ms of a sample, if `json_text` is one.
std::optional<int64_t> sample_time(std::string_view json_text) {
  const auto doc = json::parse_strict(json_text);
  return doc ? json::get_int64(*doc, "ts_ms") : std::nullopt;
}

// An SSE field line "name: value" (one optional space after the colon, as the SSE spec says).
std::optional<std::string_view> field(std::string_view line, std::string_view name) {
  if (line.size() <= name.size() || line.substr(0, name.size()) != name || line[name.size()] != ':') return std::nullopt;
  std::string_view value = line.substr(name.size() + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  return value;
}

}  // namespace

SseSubscriber::SseSubscriber(asio::io_context& io, tcp::endpoint server, CallApi api,
                             std::shared_ptr<const HttpRequestMessage> request)
    : socket_(io), server_(std::move(server)), api_(api), request_(std::move(request)) {}

void SseSubscriber::open(Opened opened) {
  opened_ = std::move(opened);
  socket_.async_connect(server_, [self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec) return self->end("connect " + ec.message());
    self->socket_.set_option(tcp::no_delay(true));
    bhttp::async_write(self->socket_, *self->request_, [self](const boost::system::error_code& write_error, size_t) {
      if (write_error) return self->end("write " + write_error.message());
      self->read_header();
    });
  });
}

void SseSubscriber::read_header() {
  parser_.emplace();
  parser_->body_limit(boost::none);  // a stream's body runs until the connection closes
  bhttp::async_read_header(socket_, buffer_, *parser_, [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
    if (ec) return self->end("header " + ec.message());
    const auto& head = self->parser_->get();
    const auto type = head[bhttp::field::content_type];
    if (head.result_int() == 200 && type.starts_with("text/event-stream")) {
      if (auto opened = std::exchange(self->opened_, nullptr)) opened("");
      return self->read_body();
    }
    // A refusal has an ordinary body: read it for the error code, then report.
    bhttp::async_read(self->socket_, self->buffer_, *self->parser_, [self](const boost::system::error_code&, size_t) {
      HttpReplyMessage reply = self->parser_->release();
      const ToolCallApi reader(self->api_, "", "", "");
      self->end(reader.failure_of(reply));
    });
  });
}

void SseSubscriber::read_body() {
  bhttp::async_read_some(socket_, buffer_, *parser_, [self = shared_from_this()](const boost::system::error_code& ec, size_t) {
    self->take_events();
    if (ec) return self->end(ec == bhttp::error::end_of_stream || ec == asio::error::eof ? "eof" : ec.message());
    if (self->parser_->is_done()) return self->end("eof");
    self->read_body();
  });
}

void SseSubscriber::take_events() {
  std::string& body = parser_->get().body();
  pending_ += body;
  body.clear();
  size_t start = 0;
  for (size_t end = pending_.find("\n\n"); end != std::string::npos; end = pending_.find("\n\n", start)) {
    std::string_view block(pending_.data() + start, end - start);
    std::string_view type = "message", data;
    while (!block.empty()) {
      const size_t eol = block.find('\n');
      const std::string_view line = block.substr(0, eol);
      if (const auto v = field(line, "event")) type = *v;
      if (const auto v = field(line, "data")) data = *v;  // the front writes single-line data
      block.remove_prefix(eol == std::string_view::npos ? block.size() : eol + 1);
    }
    on_event(type, data);
    start = end + 2;
  }
  pending_.erase(0, start);
}

void SseSubscriber::on_event(std::string_view type, std::string_view data) {
  std::optional<int64_t> ts_ms;
  if (api_ == CallApi::kRfc0009) {
    if (type == "close") return end("close " + std::string(data));
    if (type == "metric") ts_ms = sample_time(data);
  } else if (type == "message") {
    const auto parsed = json::parse_strict(data);
    if (!parsed) return end("unreadable message");
    const json::Document& message = *parsed;
    if (json::find(message, "id") != nullptr) return end("result");  // the call's final answer
    if (json::get_string(message, "method") != "notifications/progress") return;
    const json::Value* params = json::find(message, "params");
    const auto text = params != nullptr && params->IsObject() ? json::get_string(*params, "message") : std::nullopt;
    if (text) ts_ms = sample_time(*text);
  }
  if (ts_ms) samples_.push_back(StreamSample{steady_ms(), wall_ms() - static_cast<double>(*ts_ms)});
}

void SseSubscriber::close() {
  closing_ = true;
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

void SseSubscriber::end(const std::string& why) {
  if (auto opened = std::exchange(opened_, nullptr)) opened(why.empty() ? "failed" : why);
  if (ended_.empty() && !closing_) ended_ = why;
  boost::system::error_code ignored;
  socket_.close(ignored);
}

}  // namespace fleetmcp::bench

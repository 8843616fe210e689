// fleetmcp-http-stalled-client: an RFC-0009 stream client that stops reading, for §9 fixture 2
// (idle, 4408) and §6 (backpressure, 4413). Its receive buffer and TCP window are clamped small,
// so once it stops reading the window closes within a few frames, as a real stalled client's
// would after its (larger) buffers filled. After the stall it reads whatever the server left
// and prints everything it received.
//
//   fleetmcp-http-stalled-client --port P --token T --tool NAME [--interval-ms N]
//                                [--read-frames K] [--stall-ms S] [--read-timeout-ms R]
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <chrono>
#include <iostream>
#include <string>
#include <thread>

namespace {

namespace asio = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = asio::ip::tcp;

struct Args {
  std::string port, token, tool;
  int interval_ms = 1000, read_frames = 1, stall_ms = 5000, read_timeout_ms = 15000;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--port") a.port = v;
    else if (k == "--token") a.token = v;
    else if (k == "--tool") a.tool = v;
    else if (k == "--interval-ms") a.interval_ms = std::stoi(v);
    else if (k == "--read-frames") a.read_frames = std::stoi(v);
    else if (k == "--stall-ms") a.stall_ms = std::stoi(v);
    else if (k == "--read-timeout-ms") a.read_timeout_ms = std::stoi(v);
    else throw std::runtime_error("unknown argument " + k);
  }
  if (a.port.empty() || a.token.empty() || a.tool.empty()) throw std::runtime_error("--port, --token and --tool are required");
  return a;
}

size_t count(const std::string& haystack, const std::string& needle) {
  size_t n = 0;
  for (size_t at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Args args = parse(argc, argv);
    asio::io_context io;
    tcp::socket socket(io);
    socket.open(tcp::v4());
    const int small = 1024;
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    ::setsockopt(socket.native_handle(), IPPROTO_TCP, TCP_WINDOW_CLAMP, &small, sizeof small);
    socket.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(std::stoi(args.port))));

    bhttp::request<bhttp::string_body> req{bhttp::verb::post, "/mcp/tools/call", 11};
    req.set(bhttp::field::host, "127.0.0.1");
    req.set(bhttp::field::authorization, "Bearer " + args.token);
    req.set(bhttp::field::accept, "text/event-stream");
    req.set(bhttp::field::content_type, "application/json");
    req.body() = "{\"tool\":\"" + args.tool + "\",\"arguments\":{\"interval_ms\":" + std::to_string(args.interval_ms) + "}}";
    req.prepare_payload();
    bhttp::write(socket, req);

    std::string received;
    char buf[256];
    while (count(received, "event: metric") < static_cast<size_t>(args.read_frames)) {
      received.append(buf, socket.read_some(asio::buffer(buf)));
    }
    std::cerr << "stalled-client: read " << args.read_frames << " frames; not reading for " << args.stall_ms << " ms\n";
    std::this_thread::sleep_for(std::chrono::milliseconds(args.stall_ms));

    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(args.read_timeout_ms);
    socket.non_blocking(true);
    for (;;) {
      boost::system::error_code ec;
      const size_t n = socket.read_some(asio::buffer(buf), ec);
      if (ec == asio::error::would_block) {
        if (std::chrono::steady_clock::now() > deadline) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        continue;
      }
      if (ec) break;  // EOF or reset: the server tore the connection down
      received.append(buf, n);
    }
    std::cout << received;
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "stalled-client: " << e.what() << "\n";
    return 1;
  }
}

// fleetmcp-http-testhost: the real HTTP front (Beast server, MCP, RFC-0009, schemas, auth) over
// the in-memory FleetView, for HTTP-level tests with real clients (the MCP TypeScript SDK, curl)
// before the plugin's own FleetView is wired. The in-memory devices run on their own thread, as
// the broker's would.
//
//   fleetmcp-http-testhost --schemas DIR --issuer-pub FILE --fleet FILE [--set http_KEY=VALUE]...
//       prints "port N" once listening, then reads commands, one per line, on stdin:
//       offline ID | online ID | expire ID | remove ID | silent ID on|off | revoke JTI |
//       add {node json} | quit          (stdin closing means quit too)
//   fleetmcp-http-testhost --write-test-schemas SRC DST
//       writes SRC plus the test.relay kind to DST (test_schemas.h)
#include <boost/asio/io_context.hpp>
#include <boost/asio/executor_work_guard.hpp>

#include <iostream>
#include <sstream>
#include <thread>

#include "broker_plugin/http/transport/asio_scheduler.h"
#include "broker_plugin/http/front/http_front.h"
#include "tests/support/memory_fleet.h"
#include "tests/support/test_schemas.h"
#include "common/base/file_text.h"
#include "common/crypto/ed25519.h"
#include "common/ids/ulid.h"

namespace {

using namespace fleetmcp;
using namespace fleetmcp::http;

struct Args {
  std::string schemas, issuer_pub, fleet;
  FrontOptionList options;
};

Args parse_args(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw Error(ErrorCode::kBadRequest, arg + " needs a value", "see the usage in front_testhost.cc");
      return argv[++i];
    };
    if (arg == "--schemas") a.schemas = next();
    else if (arg == "--issuer-pub") a.issuer_pub = next();
    else if (arg == "--fleet") a.fleet = next();
    else if (arg == "--set") {
      const std::string kv = next();
      const size_t eq = kv.find('=');
      if (eq == std::string::npos) throw Error(ErrorCode::kBadRequest, "--set needs KEY=VALUE", "");
      a.options.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    } else {
      throw Error(ErrorCode::kBadRequest, "unknown argument " + arg, "see the usage in front_testhost.cc");
    }
  }
  if (a.schemas.empty() || a.issuer_pub.empty() || a.fleet.empty()) {
    throw Error(ErrorCode::kBadRequest, "--schemas, --issuer-pub and --fleet are required", "");
  }
  return a;
}

void run_command(const std::string& line, testing::MemoryFleet& fleet) {
  std::istringstream in(line);
  std::string verb, arg, flag;
  in >> verb >> arg >> flag;
  if (verb == "offline") fleet.set_online(arg, false);
  else if (verb == "online") fleet.set_online(arg, true);
  else if (verb == "expire") fleet.expire(arg);
  else if (verb == "remove") fleet.remove_node(arg);
  else if (verb == "silent") fleet.set_silent(arg, flag == "on");
  else if (verb == "revoke") fleet.revoke_token(arg);
  else if (verb == "add") fleet.load_json("{\"nodes\":[" + line.substr(4) + "]}");
  else throw Error(ErrorCode::kBadRequest, "unknown command " + verb, "");
  std::cout << "ok " << verb << std::endl;
}

int serve(const Args& args) {
  // The in-memory devices' own thread: callbacks reach the front from a foreign thread.
  auto device_io = std::make_shared<boost::asio::io_context>(1);
  auto work = boost::asio::make_work_guard(*device_io);
  std::thread device_thread([device_io] { device_io->run(); });
  auto device = std::make_shared<AsioScheduler>(device_io);  // device_io has one thread

  auto schemas = SchemaRegistry::load(args.schemas);
  testing::MemoryFleet fleet(schemas, device, [] { return now_ms(); });
  fleet.load_json(read_file(args.fleet, ErrorCode::kBadRequest).value());

  FrontOptions options = parse_front_options(front_option_set(args.options)).value();
  const auto issuer =
      ed25519_public_key_from_pem(read_file(args.issuer_pub, ErrorCode::kBadRequest).value(), args.issuer_pub).value();
  {
    HttpFront front(options, fleet, schemas, issuer, CallAudit::to_file(options.audit_log));
    front.start();
    std::cout << "port " << front.port() << std::endl;
    for (std::string line; std::getline(std::cin, line);) {
      if (line == "quit") break;
      if (line.empty()) continue;
      try {
        run_command(line, fleet);
      } catch (const Error& e) {
        std::cout << "error " << e.envelope().to_json() << std::endl;
      }
    }
    front.stop();
  }
  work.reset();
  device_io->stop();
  device_thread.join();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 4 && std::string(argv[1]) == "--write-test-schemas") {
      std::cout << fleetmcp::http::testing::write_test_schemas(argv[2], argv[3]) << std::endl;
      return 0;
    }
    return serve(parse_args(argc, argv));
  } catch (const fleetmcp::Error& e) {
    std::cerr << e.envelope().to_json() << std::endl;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "fleetmcp-http-testhost: " << e.what() << std::endl;
    return 1;
  }
}

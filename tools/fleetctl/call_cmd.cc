// fleetctl call: one tool call through the broker's RFC-0009 endpoint (POST <FLEETMCP_URL>/tools/call,
// docs/protocol.md §7), for operators and scripts that want an answer without an MCP client.
#include <chrono>
#include <iostream>
#include <string>

#include "common/base/error.h"
#include "common/base/json.h"
#include "tools/fleetctl/args.h"
#include "tools/fleetctl/commands.h"
#include "tools/fleetctl/fleet_access.h"
#include "tools/fleetctl/http_post.h"

namespace fleetctl {
namespace {

using fleetmcp::Error;
using fleetmcp::ErrorCode;
namespace json = fleetmcp::json;

constexpr const char* kHelp =
    "usage: fleetctl call TOOL [ARGUMENTS_JSON] [--url URL] [--token-file F] [--cacert F] [--timeout-s N]\n\n"
    "Calls one tool of one node through the broker's RFC-0009 endpoint (POST URL/tools/call) and\n"
    "prints its result as JSON on stdout. TOOL is the node's projected tool name, dotted or dashed,\n"
    "e.g. sysecho.<node_id>.echo.invoke (fleetctl nodes lists the nodes, tools/list the names).\n\n"
    "  ARGUMENTS_JSON  the tool's arguments, a JSON object (default {})\n"
    "  --url URL       the MCP endpoint, e.g. https://127.0.0.1:8443/mcp (default $FLEETMCP_URL)\n"
    "  --token-file F  a file holding the agent token (default $FLEETMCP_TOKEN)\n"
    "  --cacert F      https: the fleet's CA certificate (default: the system's CA store)\n"
    "  --timeout-s N   give up after N seconds (default 30)\n\n"
    "Exit 0 with the result; 1 when the call was refused or failed (the error envelope on stderr,\n"
    "with its suggested_fix); 2 for a bad command line; 3 when the endpoint cannot be reached.\n";

std::string request_body(const std::string& tool, const std::string& arguments_json) {
  const auto arguments = json::parse_strict(arguments_json).value();
  if (!arguments.IsObject()) {
    throw Error(ErrorCode::kBadRequest, "ARGUMENTS_JSON must be a JSON object",
                "for example '{\"message\":\"ping\"}', or leave it out for {}");
  }
  json::Document body(rapidjson::kObjectType);
  auto& a = body.GetAllocator();
  body.AddMember("tool", json::string_value(tool, a), a);
  body.AddMember("arguments", json::Value(arguments, a), a);
  return json::to_string(body);
}

// The endpoint answers a refusal with the RFC-0001 envelope; anything else is passed on as it came.
int report_refusal(const HttpAnswer& answer) {
  const auto doc = json::parse_strict(answer.body);  // not JSON: reported below with the status
  if (doc && doc->IsObject() && json::get_string(*doc, "code")) {
    std::cerr << answer.body << "\n";
    return kExitRefused;
  }
  throw Error(ErrorCode::kInternal,
              "HTTP " + std::to_string(answer.status) + " without an error envelope: " + answer.body.substr(0, 300),
              "is URL the broker's /mcp endpoint?");
}

}  // namespace

int cmd_call(const Argv& argv) {
  Args args(argv, {"url", "token-file", "cacert", "timeout-s"}, {});
  if (args.help()) {
    std::cout << kHelp;
    return kExitOk;
  }
  const auto& positionals = args.positionals();
  if (positionals.empty() || positionals.size() > 2) {
    throw Error(ErrorCode::kBadRequest, "fleetctl call takes TOOL and optionally ARGUMENTS_JSON",
                "for example: fleetctl call sysecho.<node_id>.echo.invoke '{\"message\":\"ping\"}'");
  }
  HttpPost post;
  post.url = parse_http_url(option_or_env(args, "url", "FLEETMCP_URL"));
  if (!post.url.target.ends_with('/')) post.url.target += '/';
  post.url.target += "tools/call";
  post.bearer_token = agent_token(args);
  post.body = request_body(positionals[0], positionals.size() == 2 ? positionals[1] : "{}");
  post.ca_file = args.get("cacert").value_or("");
  post.timeout = std::chrono::seconds(args.integer("timeout-s", 30, 1, 3600));

  const HttpAnswer answer = post_json(post);
  if (answer.status != 200) return report_refusal(answer);
  std::cout << answer.body << (answer.body.ends_with('\n') ? "" : "\n");
  return kExitOk;
}

}  // namespace fleetctl

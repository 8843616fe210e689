// Human confirmation by MCP elicitation (issue 14 part 3). A session whose client declared the
// `elicitation` capability at initialize, on protocol 2025-06-18 or later, confirms physical
// actuation by asking the human: the front sends `elicitation/create` (what will happen, on which
// node, with which arguments) and runs the call only on `accept`; `decline`, `cancel` or no answer
// within kElicitationTimeout is E_SAFETY_DENIED. Clients without the capability keep the
// commit-token two-phase flow (call_gate.h).
//
// Where the request goes: the session's GET stream (the SDK clients open it right after
// initialize). The spec prefers the POST response stream for requests related to a call; the
// front answers tools/call with plain JSON, so the GET stream is the one it has. A session with no
// GET stream open falls back to the commit token. The client's response comes back as a POSTed
// JSON-RPC response, matched here by id. A call whose session ends while it waits is answered at
// once that the session ended (issue 33, item 2), not after the timeout.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <memory>
#include <string>

#include "broker_plugin/http/mcp/mcp_session.h"
#include "common/base/json.h"

namespace fleetmcp::http {

inline constexpr std::chrono::milliseconds kElicitationTimeout{120000};

enum class ElicitationAnswer { kAccept, kDecline, kCancel };
std::string_view elicitation_answer_name(ElicitationAnswer a);  // "accept" …

class Elicitations {
 public:
  // initialize: `capabilities` is the client's (may be null). Sessions are held weakly.
  void session_started(const std::shared_ptr<McpSession>& session, const json::Value* capabilities);
  // The client declared elicitation and a GET stream is open to send the question on.
  bool can_ask(const McpSession& session) const;

  // Registers a question and returns the elicitation/create request to send. `done` runs once.
  std::string ask(const std::string& session_id, std::string_view message,
                  std::function<void(ElicitationAnswer)> done, std::string& request_id_key);
  // A JSON-RPC response POSTed by the client. False when it answers nothing we asked.
  bool deliver(const std::string& session_id, const json::Value& response);
  // The timeout: the question is cancelled (no-op when answered).
  void abandon(const std::string& request_id_key);
  // The call's session ended or the client cancelled the call: the question is forgotten and
  // `done` never runs; the caller answers the call. False when an answer (or the timeout) came
  // first: `done` answers it.
  bool withdraw(const std::string& request_id_key);

 private:
  struct Pending {
    std::string session_id;
    std::function<void(ElicitationAnswer)> done;
  };
  mutable std::mutex mutex_;
  std::map<std::string, std::weak_ptr<McpSession>> capable_;  // session id -> session
  std::map<std::string, Pending> pending_;  // request id text -> question
  uint64_t next_ = 1;
};

}  // namespace fleetmcp::http

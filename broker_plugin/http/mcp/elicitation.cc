#include "broker_plugin/http/mcp/elicitation.h"

#include "broker_plugin/http/base/jsonrpc.h"

namespace fleetmcp::http {

std::string_view elicitation_answer_name(ElicitationAnswer a) {
  switch (a) {
    case ElicitationAnswer::kAccept: return "accept";
    case ElicitationAnswer::kDecline: return "decline";
    case ElicitationAnswer::kCancel: break;
  }
  return "cancel";
}

void Elicitations::session_started(const std::shared_ptr<McpSession>& session, const json::Value* capabilities) {
  if (session->revision() == McpRevision::k2025_03_26) return;  // elicitation came with 2025-06-18
  const json::Value* e = capabilities != nullptr && capabilities->IsObject() ? json::find(*capabilities, "elicitation") : nullptr;
  if (e == nullptr || !e->IsObject()) return;
  std::lock_guard<std::mutex> lock(mutex_);
  std::erase_if(capable_, [](const auto& entry) { return entry.second.expired(); });  // ended sessions
  capable_[session->id()] = session;
}

bool Elicitations::can_ask(const McpSession& session) const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (capable_.count(session.id()) == 0) return false;
  }
  return session.streaming();
}

std::string Elicitations::ask(const std::string& session_id, std::string_view message,
                              std::function<void(ElicitationAnswer)> done, std::string& request_id_key) {
  json::Document request(rapidjson::kObjectType);
  auto& a = request.GetAllocator();
  std::string id;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = "fleetmcp-confirm-" + std::to_string(next_++);
    request_id_key = "\"" + id + "\"";  // id_key() of a string id
    pending_[request_id_key] = Pending{session_id, std::move(done)};
  }
  request.AddMember("jsonrpc", "2.0", a);
  request.AddMember("id", json::string_value(id, a), a);
  request.AddMember("method", "elicitation/create", a);
  json::Value params(rapidjson::kObjectType), schema(rapidjson::kObjectType);
  params.AddMember("message", json::string_value(message, a), a);
  // Nothing to fill in: the answer is the action itself (accept, decline, cancel).
  schema.AddMember("type", "object", a);
  schema.AddMember("properties", json::Value(rapidjson::kObjectType), a);
  params.AddMember("requestedSchema", schema, a);
  request.AddMember("params", params, a);
  return json::to_string(request);
}

bool Elicitations::deliver(const std::string& session_id, const json::Value& response) {
  const json::Value* id = json::find(response, "id");
  if (id == nullptr) return false;
  std::function<void(ElicitationAnswer)> done;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = pending_.find(id_key(*id));
    if (it == pending_.end() || it->second.session_id != session_id) return false;  // not ours, or not to this session
    done = std::move(it->second.done);
    pending_.erase(it);
  }
  ElicitationAnswer answer = ElicitationAnswer::kCancel;  // an error response cancels
  if (const json::Value* result = json::find(response, "result"); result != nullptr && result->IsObject()) {
    const auto action = json::get_string(*result, "action");
    if (action == "accept") answer = ElicitationAnswer::kAccept;
    else if (action == "decline") answer = ElicitationAnswer::kDecline;
  }
  done(answer);
  return true;
}

void Elicitations::abandon(const std::string& request_id_key) {
  std::function<void(ElicitationAnswer)> done;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = pending_.find(request_id_key);
    if (it == pending_.end()) return;
    done = std::move(it->second.done);
    pending_.erase(it);
  }
  done(ElicitationAnswer::kCancel);
}

bool Elicitations::withdraw(const std::string& request_id_key) {
  std::lock_guard<std::mutex> lock(mutex_);
  return pending_.erase(request_id_key) > 0;
}

}  // namespace fleetmcp::http

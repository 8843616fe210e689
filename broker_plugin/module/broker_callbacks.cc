#include <mosquitto_broker.h>
#include <mosquitto_plugin.h>
#include <mosquitto.h>

#include "broker_plugin/module/broker_callbacks.h"

#include <exception>
#include <string_view>

#include "broker_plugin/calls/control_api.h"

namespace fleetmcp::plugin {
namespace {

PluginInstance& instance_of(void* userdata) { return *static_cast<PluginInstance*>(userdata); }

std::string_view text(const char* s) { return s != nullptr ? std::string_view(s) : std::string_view{}; }

std::string_view bytes(const void* data, uint32_t length) {
  return data != nullptr ? std::string_view(static_cast<const char*>(data), length) : std::string_view{};
}

ClientView view_of(struct mosquitto* client) {
  ClientView view;
  view.handle = client;
  view.id = text(mosquitto_client_id(client));
  view.username = text(mosquitto_client_username(client));
  view.address = text(mosquitto_client_address(client));
  view.protocol_version = mosquitto_client_protocol_version(client);
  return view;
}

// Runs `handle`; any exception is logged and answered with `on_error`, which always denies.
template <typename Handle>
int guarded(const char* event, int on_error, Handle&& handle) {
  try {
    return handle();
  } catch (const std::exception& e) {
    mosquitto_log_printf(MOSQ_LOG_ERR, "fleetmcp: %s failed: %s", event, e.what());
  } catch (...) {
    mosquitto_log_printf(MOSQ_LOG_ERR, "fleetmcp: %s failed with an unknown exception", event);
  }
  return on_error;
}

int code_of(Verdict verdict, int deny) {
  switch (verdict) {
    case Verdict::kAllow: return MOSQ_ERR_SUCCESS;
    case Verdict::kDefer: return MOSQ_ERR_PLUGIN_DEFER;
    case Verdict::kDeny: return deny;
  }
  return deny;
}

int on_basic_auth(int, void* event_data, void* userdata) {
  auto* ed = static_cast<mosquitto_evt_basic_auth*>(event_data);
  // Never DEFER: with every callback deferring, mosquitto would let anonymous clients in when
  // allow_anonymous is on.
  return guarded("BASIC_AUTH", MOSQ_ERR_AUTH, [&] {
    ClientView view = view_of(ed->client);
    view.username = text(ed->username);
    view.clean_session = mosquitto_client_clean_session(ed->client);
    std::optional<std::string_view> password;
    if (ed->password != nullptr) password = ed->password;
    return code_of(instance_of(userdata).core->on_basic_auth(view, password), MOSQ_ERR_AUTH);
  });
}

int on_acl_check(int, void* event_data, void* userdata) {
  auto* ed = static_cast<mosquitto_evt_acl_check*>(event_data);
  return guarded("ACL_CHECK", MOSQ_ERR_ACL_DENIED, [&] {
    AclEvent event;
    event.access = static_cast<AclAccess>(ed->access);
    event.topic = text(ed->topic);
    event.payload = bytes(ed->payload, ed->payloadlen);
    event.retain = ed->retain;
    return code_of(instance_of(userdata).core->on_acl_check(view_of(ed->client), event), MOSQ_ERR_ACL_DENIED);
  });
}

int on_message(int, void* event_data, void* userdata) {
  auto* ed = static_cast<mosquitto_evt_message*>(event_data);
  // Only SUCCESS or ACL_DENIED: any other code (DEFER included) disconnects the publisher.
  return guarded("MESSAGE", MOSQ_ERR_ACL_DENIED, [&] {
    const MessageEvent event{text(ed->topic), bytes(ed->payload, ed->payloadlen), ed->retain};
    const Verdict verdict = instance_of(userdata).core->on_message(view_of(ed->client), event);
    return verdict == Verdict::kDeny ? MOSQ_ERR_ACL_DENIED : MOSQ_ERR_SUCCESS;
  });
}

int on_control(int, void* event_data, void* userdata) {
  auto* ed = static_cast<mosquitto_evt_control*>(event_data);
  return guarded("CONTROL", MOSQ_ERR_SUCCESS, [&] {
    instance_of(userdata).core->on_control(view_of(ed->client), bytes(ed->payload, ed->payloadlen));
    return MOSQ_ERR_SUCCESS;
  });
}

int on_tick(int, void* event_data, void* userdata) {
  auto* ed = static_cast<mosquitto_evt_tick*>(event_data);
  // Ignored by 2.0.x; in 2.1 this offset is next_ms, and without it the idle loop would sleep
  // up to 24 h between ticks (GitHub #3530).
  ed->next_ns = 100;
  return guarded("TICK", MOSQ_ERR_SUCCESS, [&] {
    instance_of(userdata).core->on_tick();
    return MOSQ_ERR_SUCCESS;
  });
}

int on_disconnect(int, void* event_data, void* userdata) {
  auto* ed = static_cast<mosquitto_evt_disconnect*>(event_data);
  return guarded("DISCONNECT", MOSQ_ERR_SUCCESS, [&] {
    instance_of(userdata).core->on_disconnect(view_of(ed->client));
    return MOSQ_ERR_SUCCESS;
  });
}

int on_reload(int, void*, void* userdata) {
  guarded("RELOAD", MOSQ_ERR_SUCCESS, [&] {
    instance_of(userdata).core->on_reload();
    return MOSQ_ERR_SUCCESS;
  });
  return MOSQ_ERR_PLUGIN_DEFER;  // let other plugins' RELOAD callbacks run too
}

struct Registration {
  int event;
  MOSQ_FUNC_generic_callback callback;
};

constexpr Registration kRegistrations[] = {
    {MOSQ_EVT_BASIC_AUTH, on_basic_auth}, {MOSQ_EVT_ACL_CHECK, on_acl_check}, {MOSQ_EVT_MESSAGE, on_message},
    {MOSQ_EVT_TICK, on_tick},             {MOSQ_EVT_DISCONNECT, on_disconnect}, {MOSQ_EVT_RELOAD, on_reload},
};

const void* event_data_for(int event) {
  // CONTROL is the one event whose registration names something: the topic it handles.
  return event == MOSQ_EVT_CONTROL ? kControlTopic.data() : nullptr;
}

}  // namespace

int register_callbacks(PluginInstance& instance) {
  for (const auto& r : kRegistrations) {
    if (const int rc = mosquitto_callback_register(instance.id, r.event, r.callback, nullptr, &instance)) {
      unregister_callbacks(instance);
      return rc;
    }
  }
  if (instance.core->parts().options.control_api) {
    if (const int rc = mosquitto_callback_register(instance.id, MOSQ_EVT_CONTROL, on_control,
                                                   event_data_for(MOSQ_EVT_CONTROL), &instance)) {
      unregister_callbacks(instance);
      return rc;
    }
  }
  return MOSQ_ERR_SUCCESS;
}

void unregister_callbacks(PluginInstance& instance) {
  for (const auto& r : kRegistrations) mosquitto_callback_unregister(instance.id, r.event, r.callback, nullptr);
  if (instance.core && instance.core->parts().options.control_api) {
    mosquitto_callback_unregister(instance.id, MOSQ_EVT_CONTROL, on_control, event_data_for(MOSQ_EVT_CONTROL));
  }
}

}  // namespace fleetmcp::plugin

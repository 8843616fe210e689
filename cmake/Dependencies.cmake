# Header-only and system libraries, all from Debian packages (scripts/install-deps.sh).
find_path(RAPIDJSON_INCLUDE_DIR rapidjson/document.h REQUIRED)
find_path(VALIJSON_INCLUDE_DIR valijson/validator.hpp REQUIRED)
add_library(fleetmcp_json_headers INTERFACE)
target_include_directories(fleetmcp_json_headers SYSTEM INTERFACE ${RAPIDJSON_INCLUDE_DIR} ${VALIJSON_INCLUDE_DIR})
# Every RapidJSON user must agree on these, or objects of different layout get mixed.
target_compile_definitions(fleetmcp_json_headers INTERFACE RAPIDJSON_HAS_STDSTRING=1 RAPIDJSON_HAS_CXX11_RVALUE_REFS=1)
# valijson 1.0.3 (Debian 13) made the regex engine of "pattern" a template parameter of
# ValidationVisitor; 1.0 (Debian 12) uses std::regex (common/registry/valijson_include.h).
file(READ ${VALIJSON_INCLUDE_DIR}/valijson/validation_visitor.hpp FLEETMCP_VALIJSON_VISITOR)
string(FIND "${FLEETMCP_VALIJSON_VISITOR}" "typename RegexEngine>" FLEETMCP_VALIJSON_REGEX_ENGINE)
if(FLEETMCP_VALIJSON_REGEX_ENGINE GREATER -1)
  target_compile_definitions(fleetmcp_json_headers INTERFACE FLEETMCP_VALIJSON_REGEX_ENGINE=1)
endif()
# Not RAPIDJSON_SSE2, though it scans whitespace and strings 16 bytes at a time (about 3 % of a
# tools/call's instructions in the broker): in RapidJSON 1.1.0 (Debian's) those scans take only
# bytes up to 0x19 for control characters, so the parser accepts a raw 0x1A..0x1F inside a long
# string and the Writer writes a decoded "\u001b" back raw, both invalid JSON
# (tests/unit/common/base/json_test.cc, JsonStrict.RefusesAndEscapesEveryControlByteInLongStrings).

find_path(MOSQUITTO_INCLUDE_DIR mosquitto_broker.h)
find_library(MOSQUITTO_LIBRARY mosquitto)
# fleetmcp::paho: Eclipse Paho MQTT C++ over the async C client with TLS (libpaho-mqttpp-dev), for
# the device and fleetctl's MQTT reads.
find_library(PAHO_MQTTPP3_LIBRARY paho-mqttpp3 REQUIRED)
find_library(PAHO_MQTT3AS_LIBRARY paho-mqtt3as REQUIRED)
find_path(PAHO_MQTTPP_INCLUDE_DIR mqtt/async_client.h REQUIRED)
add_library(fleetmcp_paho INTERFACE)
add_library(fleetmcp::paho ALIAS fleetmcp_paho)
target_include_directories(fleetmcp_paho SYSTEM INTERFACE ${PAHO_MQTTPP_INCLUDE_DIR})
target_link_libraries(fleetmcp_paho INTERFACE ${PAHO_MQTTPP3_LIBRARY} ${PAHO_MQTT3AS_LIBRARY})

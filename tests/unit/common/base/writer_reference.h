// RapidJSON's Writer as the reference for bytes the project writes by hand (json::append_string,
// the MCP answer): an output stream that is not a StringBuffer, so the Writer escapes byte by byte
// with its table whatever the build defines. Over a StringBuffer with RAPIDJSON_SSE2 it would
// write 0x1A..0x1F raw (cmake/Dependencies.cmake says why the build leaves that flag off).
#pragma once

#include <rapidjson/writer.h>

#include <string>

namespace fleetmcp::testing {

struct WriterOutput {
  using Ch = char;
  std::string text;
  void Put(char c) { text.push_back(c); }
  void Flush() {}
};

// What `value` (a RapidJSON value or document) is as the Writer writes it.
template <typename Value>
std::string written_by_rapidjson(const Value& value) {
  WriterOutput out;
  rapidjson::Writer<WriterOutput> w(out);
  value.Accept(w);
  return out.text;
}

}  // namespace fleetmcp::testing

#include "common/base/json.h"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdio>
#include <limits>
#include <string>

#include "tests/unit/common/base/writer_reference.h"

namespace fleetmcp {
namespace {

ErrorEnvelope parse_error(std::string_view text, json::ParseLimits limits = {}) {
  const auto parsed = json::parse_strict(text, ErrorCode::kManifestInvalid, limits);
  if (parsed) {
    ADD_FAILURE() << "accepted: " << text;
    return {};
  }
  return parsed.error();
}

TEST(JsonStrict, AcceptsOrdinaryDocuments) {
  auto doc = json::parse_strict(R"({"a":[1,2.5,"x",true,null],"b":{"c":"\u00e9\ud83d\ude00"}})").value();
  ASSERT_TRUE(doc.IsObject());
  EXPECT_EQ(json::get_string(doc["b"], "c").value(), "\xC3\xA9\xF0\x9F\x98\x80");
}

TEST(JsonStrict, RefusesDuplicateKeysNamingThem) {
  auto env = parse_error(R"({"node_id":"a","x":{"k":1,"k":2}})");
  EXPECT_EQ(env.code, ErrorCode::kManifestInvalid);
  EXPECT_NE(env.message.find("duplicate object key \"k\""), std::string::npos) << env.message;
  EXPECT_NE(env.message.find("offset"), std::string::npos);
}

TEST(JsonStrict, SameKeyInSiblingObjectsIsFine) {
  EXPECT_NO_THROW(json::parse_strict(R"([{"k":1},{"k":2}])").value());
}

TEST(JsonStrict, RefusesInvalidUtf8) {
  EXPECT_NE(parse_error("{\"a\":\"\xC3\x28\"}").message.find("UTF-8"), std::string::npos);
  parse_error("{\"a\":\"\xED\xA0\x80\"}");        // raw surrogate
  parse_error("{\"a\":\"\xC0\xAF\"}");            // overlong '/'
  parse_error("{\"a\":\"\xF4\x90\x80\x80\"}");    // above U+10FFFF
}

// ASCII is skipped eight bytes at a time: a bad sequence is still found wherever it starts
// relative to those words, and good multi-byte characters after a long ASCII run still pass.
TEST(JsonStrict, FindsInvalidUtf8AtEveryOffsetAfterAscii) {
  // {"a":"<text>"} and {"<text>":1}, appended (GCC 12 warns falsely about "literal" + string).
  const auto in_value = [](const std::string& text) { return std::string(R"({"a":")").append(text).append(R"("})"); };
  const auto in_key = [](const std::string& text) { return std::string(R"({")").append(text).append(R"(":1})"); };
  for (size_t prefix = 0; prefix < 20; ++prefix) {
    const std::string ascii(prefix, 'a');
    parse_error(in_value(ascii + "\xC3\x28" "bcdefghijk"));
    parse_error(in_value(ascii + "\xED\xA0\x80" "bcdefghijk"));
    parse_error(in_key(ascii + "\xFF"));
    EXPECT_NO_THROW(json::parse_strict(in_value(ascii + "\xC3\xA9\xE2\x82\xAC" + ascii)).value()) << prefix;
  }
}

// Objects up to 32 keys are checked by a scan, larger ones by a hash set: both must catch a
// duplicate, the first and the last key included, and a nested object must start afresh.
TEST(JsonStrict, RefusesDuplicateKeysInSmallAndLargeObjects) {
  for (int keys : {2, 31, 32, 33, 200}) {
    std::string doc = "{";
    for (int i = 0; i < keys; ++i) doc += "\"key" + std::to_string(i) + "\":" + std::to_string(i) + ",";
    EXPECT_NO_THROW(json::parse_strict(doc.substr(0, doc.size() - 1) + "}").value()) << keys << " distinct keys";
    for (const std::string& again : {std::string("key0"), "key" + std::to_string(keys - 1)}) {
      auto env = parse_error(doc + "\"" + again + "\":0}");
      EXPECT_NE(env.message.find("duplicate object key \"" + again + "\""), std::string::npos) << env.message;
    }
  }
  EXPECT_NO_THROW(json::parse_strict(R"({"a":{"x":1,"y":2},"b":{"x":1,"y":2},"x":{"a":1}})").value());
  parse_error(R"({"a":{"x":1},"b":{"x":1,"x":2}})");
}

TEST(JsonStrict, RefusesInvalidUtf8InKeysAndOutsideStrings) {
  EXPECT_NE(parse_error("{\"\xC3\x28\":1}").message.find("UTF-8"), std::string::npos);
  parse_error("{\"a\":\xC3\xA9}");
  parse_error("\xEF\xBB\xBF{}");  // a byte-order mark is not JSON either
}

TEST(JsonStrict, RefusesLoneSurrogateEscapes) {
  parse_error(R"({"a":"\ud800"})");
  parse_error(R"({"a":"\udc00"})");
  parse_error(R"({"a":"\ud800\u0041"})");
  parse_error(R"({"\udc00":1})");
}

TEST(JsonStrict, RefusesTrailingGarbageAndNonJson) {
  parse_error(R"({"a":1} x)");
  parse_error(R"({"a":1}{"b":2})");
  parse_error("");
  parse_error("NaN");
  parse_error(R"({"a":1,})");
  parse_error("{'a':1}");
  parse_error(std::string_view());  // no text at all, data() == nullptr (the fuzzers' first input)
}

// RapidJSON reads a NUL byte as the end of its input; JSON text never holds one unescaped.
TEST(JsonStrict, RefusesNulBytesAnywhere) {
  using namespace std::string_literals;
  EXPECT_NE(parse_error("{}\0junk"s).message.find("offset 2"), std::string::npos);
  parse_error("{\"a\":\"x\0y\"}"s);
  parse_error("\0"s);
  EXPECT_NO_THROW(json::parse_strict(R"({"a":"\u0000"})").value());  // escaped, it is fine
}

// Bytes 0x00..0x1F are never raw in JSON text. RapidJSON 1.1.0's SSE2 string scans (reader.h and
// writer.h, "s < 0x20 <=> max(s, 0x19) == 0x19") let 0x1A..0x1F through inside any aligned 16-byte
// block, so with RAPIDJSON_SSE2 a long string with a raw ESC parsed and a decoded "\u001b" was
// written back raw. Long strings, and every offset, so some of those bytes land in such a block.
TEST(JsonStrict, RefusesAndEscapesEveryControlByteInLongStrings) {
  for (int c = 0x01; c < 0x20; ++c) {
    for (size_t at = 0; at < 40; ++at) {
      std::string inside(48, 'a');
      inside[at] = static_cast<char>(c);
      parse_error("{\"k\":\"" + inside + "\"}");
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", c);
      const std::string escaped = std::string(at, 'a') + escape + std::string(47 - at, 'a');
      const auto d = json::parse_strict("{\"k\":\"" + escaped + "\"}").value();
      const std::string written = json::to_string(d);
      for (const char byte : written) ASSERT_GE(static_cast<unsigned char>(byte), 0x20) << "byte " << c << " at " << at;
      EXPECT_EQ(json::parse_strict(written).value()["k"].GetStringLength(), 48u);
    }
  }
}

TEST(JsonStrict, EnforcesDepthLimit) {
  std::string ok(64, '['), deep(65, '[');
  ok += std::string(64, ']');
  deep += std::string(65, ']');
  EXPECT_NO_THROW(json::parse_strict(ok).value());
  EXPECT_NE(parse_error(deep).message.find("deeper than 64"), std::string::npos);
}

TEST(JsonStrict, EnforcesSizeLimit) {
  EXPECT_NE(parse_error(R"({"a":"0123456789"})", {.max_bytes = 8}).message.find("exceeds"), std::string::npos);
}

TEST(JsonStrict, ErrorMessagesAreAsciiWhateverTheInput) {
  auto env = parse_error("{\"\xC3\xA9\":1,\"\xC3\xA9\":2}");
  for (char c : env.message) EXPECT_TRUE(c >= 0x20 && c <= 0x7E);
}

TEST(JsonArena, EachParseEndsThePreviousDocumentAndReusesTheMemory) {
  json::ParseArena arena(256);  // small: the second document needs more than the buffer
  const auto first = json::parse_strict(R"({"msg_id":"01HZX9K3M4P7Q8R9S0T1V2W3XY","n":1})", arena).value();
  EXPECT_EQ(json::get_string(first, "msg_id").value_or(""), "01HZX9K3M4P7Q8R9S0T1V2W3XY");
  const std::string big = std::string(R"({"a":")").append(1000, 'x').append(R"(","b":[1,2,3]})");
  const auto second = json::parse_strict(big, arena).value();
  EXPECT_EQ(json::get_string(second, "a").value_or("").size(), 1000u);
  EXPECT_EQ(json::to_string(second), big);
  const auto third = json::parse_strict(R"({"k":"v"})", arena).value();
  EXPECT_EQ(json::to_string(third), R"({"k":"v"})");
  // Refused documents are refused the same way as without an arena.
  EXPECT_THROW(json::parse_strict(R"({"a":1,"a":2})", arena).value(), Error);
  EXPECT_THROW(json::parse_strict("{\"a\":\"\xC3\"}", arena).value(), Error);
}

// The string as RapidJSON's Writer writes it, escaping byte by byte (writer_reference.h).
std::string writer_string(std::string_view text) {
  return testing::written_by_rapidjson(rapidjson::Value(rapidjson::StringRef(text.data(), text.size())));
}

TEST(JsonAppendString, WritesEveryByteAsRapidJsonsWriterDoes) {
  for (int c = 1; c < 256; ++c) {
    const std::string text = std::string("a").append(1, static_cast<char>(c)).append("b");
    std::string out = "x";
    json::append_string(out, text);
    EXPECT_EQ(out, std::string("x").append(writer_string(text))) << "byte " << c;
  }
  for (const std::string_view text : {"", "plain", "\"\"", "tab\tand\nnewline\x01\x1f", "caf\xC3\xA9 \\ /"}) {
    std::string out;
    json::append_string(out, text);
    EXPECT_EQ(out, writer_string(text));
  }
}

// append_string scans eight bytes at a time: every byte at every place in and across those words,
// two in one word and long plain runs are written as the Writer writes them.
TEST(JsonAppendString, WritesEveryByteAtEveryOffsetAsRapidJsonsWriterDoes) {
  const std::string plain = "caf\xC3\xA9 \x7F~/ quick brown";  // 20 bytes: two words and a tail of 4
  for (int c = 0; c < 256; ++c) {
    for (size_t at = 0; at <= plain.size(); ++at) {
      std::string text = plain;
      if (at < plain.size()) text[at] = static_cast<char>(c);
      else text.push_back(static_cast<char>(c));  // one more byte, the last of the tail
      std::string out;
      json::append_string(out, text);
      ASSERT_EQ(out, writer_string(text)) << "byte " << c << " at " << at;
      text[(at + 3) % text.size()] = '\\';  // a second escape in the same or the next word
      out.clear();
      json::append_string(out, text);
      ASSERT_EQ(out, writer_string(text)) << "byte " << c << " at " << at << " and a backslash";
    }
  }
  const std::string long_plain = plain + plain + plain;
  for (const std::string& text : {long_plain, long_plain + "\"" + long_plain + "\n", std::string(1, '\0'),
                                  std::string(17, '"'), std::string(9, '\x1f') + "x"}) {
    std::string out;
    json::append_string(out, text);
    EXPECT_EQ(out, writer_string(text));
  }
}

TEST(JsonAppendInteger, WritesDecimalAsRapidJsonsWriterDoes) {
  for (const int64_t n : {int64_t{0}, int64_t{-1}, int64_t{1763800000000}, std::numeric_limits<int64_t>::min(),
                          std::numeric_limits<int64_t>::max()}) {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.Int64(n);
    std::string out = "x";
    json::append_integer(out, n);
    EXPECT_EQ(out, std::string("x").append(buf.GetString(), buf.GetSize())) << n;
  }
}

}  // namespace
}  // namespace fleetmcp

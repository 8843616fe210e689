// RFC 8785 (JCS) conformance: the RFC's own examples and vectors, plus the corners fleetmcp's
// manifests can hit. The expected strings are what the RFC prints (and what V8's
// JSON.stringify / npm canonicalize produce); tests/integration/jcs_crosscheck.sh checks
// thousands more values against npm canonicalize.
#include "common/crypto/jcs.h"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "common/base/error.h"
#include "common/base/json.h"

namespace fleetmcp {
namespace {

std::string number(double x) {
  std::string out;
  jcs::format_number(x, out);
  return out;
}

double from_bits(uint64_t bits) { return std::bit_cast<double>(bits); }

ErrorCode error_code_of(std::string_view text) {
  try {
    const auto canonical = jcs::canonicalize_text(text);
    if (!canonical) return canonical.error().code;
  } catch (const Error& e) {
    return e.code();  // canonicalize's own refusal: a number JSON cannot hold
  }
  ADD_FAILURE() << "accepted: " << text;
  return ErrorCode::kInternal;
}

// RFC 8785 Appendix B: IEEE-754 binary64 bit patterns and their canonical text.
struct NumberVector {
  uint64_t bits;
  const char* text;
};
constexpr NumberVector kAppendixB[] = {
    {0x0000000000000000, "0"},                          // zero
    {0x8000000000000000, "0"},                          // minus zero
    {0x0000000000000001, "5e-324"},                     // min positive
    {0x8000000000000001, "-5e-324"},                    // min negative
    {0x7fefffffffffffff, "1.7976931348623157e+308"},    // max positive
    {0xffefffffffffffff, "-1.7976931348623157e+308"},   // max negative
    {0x4340000000000000, "9007199254740992"},           // max positive int (2^53)
    {0xc340000000000000, "-9007199254740992"},          // max negative int
    {0x4430000000000000, "295147905179352830000"},      // ~2^68
    {0x44b52d02c7e14af5, "9.999999999999997e+22"},
    {0x44b52d02c7e14af6, "1e+23"},
    {0x44b52d02c7e14af7, "1.0000000000000001e+23"},
    {0x444b1ae4d6e2ef4e, "999999999999999700000"},
    {0x444b1ae4d6e2ef4f, "999999999999999900000"},
    {0x444b1ae4d6e2ef50, "1e+21"},
    {0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
    {0x3eb0c6f7a0b5ed8d, "0.000001"},
    {0x41b3de4355555553, "333333333.3333332"},
    {0x41b3de4355555554, "333333333.33333325"},
    {0x41b3de4355555555, "333333333.3333333"},
    {0x41b3de4355555556, "333333333.3333334"},
    {0x41b3de4355555557, "333333333.33333343"},
    {0xbecbf647612f3696, "-0.0000033333333333333333"},
    {0x43143ff3c1cb0959, "1424953923781206.2"},         // round to even
};

TEST(JcsNumbers, AppendixBVectors) {
  for (const auto& v : kAppendixB) {
    EXPECT_EQ(number(from_bits(v.bits)), v.text) << std::hex << v.bits;
  }
}

TEST(JcsNumbers, AppendixBVectorsSurviveParseAndCanonicalize) {
  // The canonical text parses back to the same double and canonicalises to itself.
  for (const auto& v : kAppendixB) {
    EXPECT_EQ(jcs::canonicalize_text(v.text).value(), v.text);
    EXPECT_EQ(jcs::canonicalize_text(std::string("[") + v.text + "]").value(), std::string("[") + v.text + "]");
  }
}

TEST(JcsNumbers, AppendixBNonFiniteValuesAreRefused) {
  for (const uint64_t bits : {0x7fffffffffffffffULL, 0x7ff0000000000000ULL, 0xfff0000000000000ULL}) {
    std::string out = "kept";
    try {
      jcs::format_number(from_bits(bits), out);
      ADD_FAILURE() << "formatted " << std::hex << bits << " as " << out;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kBadRequest);
      EXPECT_NE(e.envelope().message.find("non-finite"), std::string::npos) << e.envelope().message;
    }
  }
  json::Document doc;
  doc.SetArray();
  doc.PushBack(json::Value(std::numeric_limits<double>::infinity()), doc.GetAllocator());
  try {
    jcs::canonicalize(doc);
    ADD_FAILURE() << "canonicalized an array holding Infinity";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::kBadRequest);
  }
}

TEST(JcsNumbers, EcmaScriptLayoutBoundaries) {
  EXPECT_EQ(number(1e21), "1e+21");
  EXPECT_EQ(number(1e20), "100000000000000000000");
  EXPECT_EQ(number(-1e21), "-1e+21");
  EXPECT_EQ(number(1.5e21), "1.5e+21");
  EXPECT_EQ(number(1e-7), "1e-7");
  EXPECT_EQ(number(1.5e-7), "1.5e-7");
  EXPECT_EQ(number(1e-6), "0.000001");
  EXPECT_EQ(number(1.2345e-6), "0.0000012345");
  EXPECT_EQ(number(-0.0), "0");
  EXPECT_EQ(number(0.1), "0.1");
  EXPECT_EQ(number(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(number(123.456), "123.456");
  EXPECT_EQ(number(-42), "-42");
  EXPECT_EQ(number(1.0), "1");
  EXPECT_EQ(number(1e300), "1e+300");
  EXPECT_EQ(number(2.2250738585072014e-308), "2.2250738585072014e-308");
  EXPECT_EQ(number(1700000000123.0), "1700000000123");  // a millisecond timestamp
}

TEST(JcsNumbers, FormatNumberAppends) {
  std::string out = "[";
  jcs::format_number(2.5, out);
  EXPECT_EQ(out, "[2.5");
}

TEST(JcsNumbers, IntegersBeyond2To53RoundAsDoubles) {
  // RapidJSON keeps these as exact 64-bit integers; JSON.parse rounds them to the nearest double.
  EXPECT_EQ(jcs::canonicalize_text("9007199254740993").value(), "9007199254740992");
  EXPECT_EQ(jcs::canonicalize_text("9007199254740995").value(), "9007199254740996");
  EXPECT_EQ(jcs::canonicalize_text("-9007199254740993").value(), "-9007199254740992");
  EXPECT_EQ(jcs::canonicalize_text("9223372036854775807").value(), "9223372036854776000");
  EXPECT_EQ(jcs::canonicalize_text("-9223372036854775808").value(), "-9223372036854776000");
  EXPECT_EQ(jcs::canonicalize_text("18446744073709551615").value(), "18446744073709552000");
  EXPECT_EQ(jcs::canonicalize_text("18446744073709551616").value(), "18446744073709552000");
  EXPECT_EQ(jcs::canonicalize_text("123456789012345678901234567890").value(), "1.2345678901234568e+29");
  EXPECT_EQ(jcs::canonicalize_text("[9007199254740992,9007199254740991,-9007199254740991]").value(),
            "[9007199254740992,9007199254740991,-9007199254740991]");
}

TEST(JcsNumbers, ProgrammaticIntegersMatchParsedOnes) {
  json::Document doc;
  auto& a = doc.GetAllocator();
  doc.SetArray();
  doc.PushBack(json::Value(std::numeric_limits<uint64_t>::max()), a);
  doc.PushBack(json::Value(std::numeric_limits<int64_t>::min()), a);
  doc.PushBack(json::Value(int64_t{1} << 53), a);
  doc.PushBack(json::Value((int64_t{1} << 53) + 1), a);
  doc.PushBack(json::Value(-7), a);
  doc.PushBack(json::Value(0u), a);
  EXPECT_EQ(jcs::canonicalize(doc),
            "[18446744073709552000,-9223372036854776000,9007199254740992,9007199254740992,-7,0]");
}

// Decimal texts must become the double JSON.parse makes of them. RapidJSON 1.1.0's full-precision
// conversion (what common/base/json.cc uses today) gets these wrong: "0.000000000000000000000000"
// becomes -1.5274681817498023e-151, "1e-325" -2.2e+307, "1e-324" NaN, and
// "0.0000000000000000000000005e-324" crashes the parser (SIGSEGV). Enable this test together with
// the json.cc fix (numbers as text through std::from_chars).
TEST(JcsNumbers, DecimalTextsRoundLikeJsonParse) {
  EXPECT_EQ(jcs::canonicalize_text("0.0000000000000000000000005e-324").value(), "0");
  EXPECT_EQ(jcs::canonicalize_text("0.000000000000000000000001e-310").value(), "0");
  EXPECT_EQ(jcs::canonicalize_text("0.000000000000000000000000").value(), "0");
  EXPECT_EQ(jcs::canonicalize_text("-0.0000000000000000000000000000000").value(), "0");
  EXPECT_EQ(jcs::canonicalize_text("1e-325").value(), "0");
  EXPECT_EQ(jcs::canonicalize_text("1e-324").value(), "0");
  EXPECT_EQ(jcs::canonicalize_text("2.4703282292062327e-324").value(), "0");
  EXPECT_EQ(jcs::canonicalize_text("2.4703282292062328e-324").value(), "5e-324");
  EXPECT_EQ(jcs::canonicalize_text("1.7976931348623158e308").value(), "1.7976931348623157e+308");
  EXPECT_EQ(error_code_of("100e307"), ErrorCode::kBadRequest);  // Infinity to JSON.parse
}

TEST(JcsNumbers, TextualFormsCollapse) {
  EXPECT_EQ(jcs::canonicalize_text("[-0, -0.0, 0e10, 1E2, 1.000, 0.5e1, 100e-2, 1e-400]").value(), "[0,0,0,100,1,5,1,0]");
}

// RFC 8785 §3.2.2: the sample object and its canonical form.
TEST(JcsRfc8785, Section322SampleObject) {
  const char* input = R"({
    "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
    "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
    "literals": [null, true, false]
  })";
  EXPECT_EQ(jcs::canonicalize_text(input).value(),
            "{\"literals\":[null,true,false],"
            "\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
            "\"string\":\"\xE2\x82\xAC$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
}

// RFC 8785 §3.2.3: property sorting by UTF-16 code units (plus "</script>" among the ASCII keys).
TEST(JcsRfc8785, Section323SortingExample) {
  const char* input = R"({
    "\u20ac": "Euro Sign",
    "\r": "Carriage Return",
    "\ufb33": "Hebrew Letter Dalet With Dagesh",
    "1": "One",
    "\ud83d\ude00": "Emoji: Grinning Face",
    "\u0080": "Control",
    "\u00f6": "Latin Small Letter O With Diaeresis",
    "</script>": "Browser Challenge"
  })";
  EXPECT_EQ(jcs::canonicalize_text(input).value(),
            "{\"\\r\":\"Carriage Return\","
            "\"1\":\"One\","
            "\"</script>\":\"Browser Challenge\","
            "\"\xC2\x80\":\"Control\","
            "\"\xC3\xB6\":\"Latin Small Letter O With Diaeresis\","
            "\"\xE2\x82\xAC\":\"Euro Sign\","
            "\"\xF0\x9F\x98\x80\":\"Emoji: Grinning Face\","
            "\"\xEF\xAC\xB3\":\"Hebrew Letter Dalet With Dagesh\"}");
}

TEST(JcsSorting, SupplementaryCharactersSortBeforeUpperBmp) {
  // U+10000 is D800 DC00 in UTF-16, so it sorts before U+E000 although its code point is larger.
  EXPECT_EQ(jcs::canonicalize_text(R"({"\ue000":1,"\ud800\udc00":2})").value(),
            "{\"\xF0\x90\x80\x80\":2,\"\xEE\x80\x80\":1}");
  EXPECT_EQ(jcs::canonicalize_text(R"({"\ud800\udc00":2,"\ue000":1})").value(),
            "{\"\xF0\x90\x80\x80\":2,\"\xEE\x80\x80\":1}");
  // Same rule deeper in the key, after a common prefix.
  EXPECT_EQ(jcs::canonicalize_text(R"({"k\uffff":1,"k\udbff\udfff":2})").value(),
            "{\"k\xF4\x8F\xBF\xBF\":2,\"k\xEF\xBF\xBF\":1}");
}

TEST(JcsSorting, FullOrderAcrossEncodingLengths) {
  // Listed in UTF-16 order; the input order is scrambled.
  const char* input = R"({"\uffff":9,"b":3,"\ud83d\ude00":6,"":0,"\ue000":8,"ab":2,"\ud7ff":5,
                          "\u00e9":4,"a":1,"\udbff\udfff":7})";
  EXPECT_EQ(jcs::canonicalize_text(input).value(),
            "{\"\":0,\"a\":1,\"ab\":2,\"b\":3,\"\xC3\xA9\":4,\"\xED\x9F\xBF\":5,"
            "\"\xF0\x9F\x98\x80\":6,\"\xF4\x8F\xBF\xBF\":7,\"\xEE\x80\x80\":8,\"\xEF\xBF\xBF\":9}");
}

TEST(JcsSorting, PrefixSortsFirstAndCaseMatters) {
  EXPECT_EQ(jcs::canonicalize_text(R"({"abc":3,"ab":2,"a":1,"B":0,"\u007f":4})").value(),
            "{\"B\":0,\"a\":1,\"ab\":2,\"abc\":3,\"\x7f\":4}");
}

TEST(JcsStrings, EscapesExactlyAsRfc8785) {
  std::string controls = "\"";
  for (int c = 0; c < 0x20; ++c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", c);
    controls += buf;
  }
  controls += "\"";
  EXPECT_EQ(jcs::canonicalize_text(controls).value(),
            "\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e"
            "\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a"
            "\\u001b\\u001c\\u001d\\u001e\\u001f\"");
}

TEST(JcsStrings, EverythingElseIsVerbatimUtf8) {
  // DEL, '/', U+2028/U+2029, non-ASCII and astral characters are not escaped; escapes in the
  // input that name them are decoded.
  EXPECT_EQ(jcs::canonicalize_text(R"("\u007f\/\u2028\u2029\u00e9\ud83d\ude00<>&'")").value(),
            "\"\x7F/\xE2\x80\xA8\xE2\x80\xA9\xC3\xA9\xF0\x9F\x98\x80<>&'\"");
  EXPECT_EQ(jcs::canonicalize_text(R"("quote \" backslash \\ both \\\"")").value(),
            R"("quote \" backslash \\ both \\\"")");
  EXPECT_EQ(jcs::canonicalize_text(R"("")").value(), R"("")");
  EXPECT_EQ(jcs::canonicalize_text(R"("\u0041\u0000z")").value(), R"("A\u0000z")");
}

TEST(JcsStructure, NestedContainersLoseWhitespaceAndSortEveryLevel) {
  const char* input = R"( { "b" : [ { "z" : 1 , "a" : [ { } , [ ] , "x" ] } ] ,
                           "a" : { "y" : { "x" : null , "w" : true } } , "c" : [] } )";
  EXPECT_EQ(jcs::canonicalize_text(input).value(),
            R"({"a":{"y":{"w":true,"x":null}},"b":[{"a":[{},[],"x"],"z":1}],"c":[]})");
}

TEST(JcsStructure, ArrayOrderIsKept) {
  EXPECT_EQ(jcs::canonicalize_text(R"([3, "b", {"b":1,"a":2}, "a", 1])").value(), R"([3,"b",{"a":2,"b":1},"a",1])");
}

TEST(JcsStructure, ScalarsAtTopLevel) {
  EXPECT_EQ(jcs::canonicalize_text("null").value(), "null");
  EXPECT_EQ(jcs::canonicalize_text(" true ").value(), "true");
  EXPECT_EQ(jcs::canonicalize_text("false").value(), "false");
  EXPECT_EQ(jcs::canonicalize_text("\"s\"").value(), "\"s\"");
  EXPECT_EQ(jcs::canonicalize_text("{}").value(), "{}");
  EXPECT_EQ(jcs::canonicalize_text("[]").value(), "[]");
}

TEST(JcsStructure, CanonicalizeAppendsToTheBuffer) {
  const json::Document doc = json::parse_strict(R"({"b":1,"a":2})").value();
  std::string out = "prefix:";
  jcs::canonicalize(doc, out);
  EXPECT_EQ(out, R"(prefix:{"a":2,"b":1})");
  EXPECT_EQ(jcs::canonicalize(doc), R"({"a":2,"b":1})");
}

TEST(JcsStructure, DeepNestingSortsEachObjectIndependently) {
  // Each level's member list sits on a shared stack; a wide inner object must not disturb the
  // sort of the outer one.
  std::string input = "{\"z\":0,\"m\":{";
  for (int i = 0; i < 200; ++i) input += (i ? ",\"k" : "\"k") + std::to_string(999 - i) + "\":" + std::to_string(i);
  input += "},\"a\":{\"y\":{\"q\":[{\"c\":1,\"b\":2}]},\"x\":1}}";
  std::string expected = R"({"a":{"x":1,"y":{"q":[{"b":2,"c":1}]}},"m":{)";
  for (int i = 199; i >= 0; --i) {
    expected += (i != 199 ? ",\"k" : "\"k") + std::to_string(999 - i) + "\":" + std::to_string(i);
  }
  expected += R"(},"z":0})";
  EXPECT_EQ(jcs::canonicalize_text(input).value(), expected);
}

TEST(JcsInput, InvalidJsonIsABadRequest) {
  EXPECT_EQ(error_code_of("1e400"), ErrorCode::kBadRequest);           // not a finite double
  EXPECT_EQ(error_code_of(R"({"a":1,"a":2})"), ErrorCode::kBadRequest);  // duplicate key
  EXPECT_EQ(error_code_of(R"("\ud800")"), ErrorCode::kBadRequest);      // lone surrogate
  EXPECT_EQ(error_code_of("[1,]"), ErrorCode::kBadRequest);
  EXPECT_EQ(error_code_of(""), ErrorCode::kBadRequest);
  EXPECT_EQ(error_code_of("NaN"), ErrorCode::kBadRequest);
}

TEST(JcsSpans, BlankingAReportedStringGivesTheCanonicalFormOfTheBlankedDocument) {
  json::Document doc = json::parse_strict(
      R"({"z":[1,{"sig":"abc-_0","q":"\u00e9"}],"node_attestation":{"sig":"SIG","payload_hash":"f00d","kid":"k"}})").value();
  json::Value& attestation = doc["node_attestation"];
  std::array<jcs::ValueSpan, 3> spans{{{&attestation["sig"]}, {&attestation["payload_hash"]}, {&doc["z"]}}};
  std::string text;
  jcs::canonicalize(doc, text, spans);
  EXPECT_EQ(text, jcs::canonicalize(doc)) << "reporting spans changes nothing";
  EXPECT_EQ(text.substr(spans[0].begin, spans[0].end - spans[0].begin), "\"SIG\"");
  EXPECT_EQ(text.substr(spans[1].begin, spans[1].end - spans[1].begin), "\"f00d\"");
  EXPECT_EQ(text.substr(spans[2].begin, spans[2].end - spans[2].begin), R"([1,{"q":"é","sig":"abc-_0"}])");

  std::string spliced = text;
  spliced.replace(spans[0].begin, spans[0].end - spans[0].begin, "\"\"");
  attestation["sig"].SetString("");
  EXPECT_EQ(spliced, jcs::canonicalize(doc));

  json::Value absent("elsewhere");
  std::array<jcs::ValueSpan, 1> none{{{&absent}}};
  std::string again;
  jcs::canonicalize(doc, again, none);
  EXPECT_EQ(none[0].begin, 0u);
  EXPECT_EQ(none[0].end, 0u);
}

}  // namespace
}  // namespace fleetmcp

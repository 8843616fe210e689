// Tool-name projection (RFC-0001 §3, §3.1, §5.5; RFC-0005 §2; RFC-0009 §2), the dashed form of
// docs/protocol.md D9, required scopes (docs/protocol.md §7) and kind registry rows (RFC-0001 §3.2, docs/protocol.md §8).
#include "common/registry/kinds.h"

#include <gtest/gtest.h>

#include <string>

#include "common/base/error.h"

namespace fleetmcp {
namespace {

constexpr std::string_view kNode = "01hzx9k3m4p7q8r9s0t1v2w3xy";  // the RFCs' example node_id

std::string dotted(std::string_view ks, std::string_view node, std::string_view cap, std::string_view verb) {
  const auto name = make_tool_name(ks, node, cap, verb);
  EXPECT_TRUE(name.has_value()) << ks << " " << node << " " << cap << " " << verb;
  return name ? name->dotted() : std::string();
}

TEST(Projection, RfcExamplesHaveTheirExactLengths) {
  // RFC-0001 §5.5 (v1.2 corrected lengths).
  EXPECT_EQ(dotted("sys", kNode, "sysmetrics", "snapshot"), "sys.01hzx9k3m4p7q8r9s0t1v2w3xy.sysmetrics.snapshot");
  EXPECT_EQ(dotted("sys", kNode, "sysmetrics", "snapshot").size(), 50u);
  EXPECT_EQ(dotted("sys", kNode, "sysmetrics", "subscribe"), "sys.01hzx9k3m4p7q8r9s0t1v2w3xy.sysmetrics.subscribe");
  EXPECT_EQ(dotted("sys", kNode, "sysmetrics", "subscribe").size(), 51u);
  // RFC-0005 §2.
  EXPECT_EQ(dotted("sysecho", kNode, "echo", "invoke"), "sysecho.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke");
  EXPECT_EQ(dotted("sysecho", kNode, "echo", "invoke").size(), 46u);
  // RFC-0009 §2 with docs/protocol.md D2's cap_id.
  EXPECT_EQ(dotted("sys", kNode, "metrics", "subscribe").size(), 48u);
  // RFC-0001 §3.1 worst case at the schema limits: exactly 64.
  const auto worst = dotted("abcdefgh", kNode, "abcdefghijklmnopqr", "subscribe");
  EXPECT_EQ(worst, "abcdefgh.01hzx9k3m4p7q8r9s0t1v2w3xy.abcdefghijklmnopqr.subscribe");
  EXPECT_EQ(worst.size(), kMaxToolNameLength);
  ASSERT_TRUE(parse_tool_name(worst).has_value());
  EXPECT_EQ(parse_tool_name(worst)->cap_id, "abcdefghijklmnopqr");
}

TEST(Projection, SixtyFiveCharactersAreRefused) {
  // One more character in kind_short or in cap_id: 65 chars, over the budget.
  const std::string long_short = "abcdefghi.01hzx9k3m4p7q8r9s0t1v2w3xy.abcdefghijklmnopqr.subscribe";
  const std::string long_cap = "abcdefgh.01hzx9k3m4p7q8r9s0t1v2w3xy.abcdefghijklmnopqrs.subscribe";
  ASSERT_EQ(long_short.size(), 65u);
  ASSERT_EQ(long_cap.size(), 65u);
  EXPECT_FALSE(parse_tool_name(long_short).has_value());
  EXPECT_FALSE(parse_tool_name(long_cap).has_value());
  EXPECT_FALSE(make_tool_name("abcdefghi", kNode, "abcdefghijklmnopqr", "subscribe").has_value());
  EXPECT_FALSE(make_tool_name("abcdefgh", kNode, "abcdefghijklmnopqrs", "subscribe").has_value());
}

TEST(Projection, BadTokensAreRefused) {
  // kind_short ^[a-z][a-z0-9_]{0,7}$
  for (const char* ks : {"", "Sys", "1sys", "_sys", "sys-x", "sys.x", "abcdefghi"}) {
    EXPECT_FALSE(make_tool_name(ks, kNode, "echo", "invoke").has_value()) << ks;
  }
  // node_id ^[0-9a-hjkmnp-tv-z]{26}$: lowercase Crockford, no i l o u, exactly 26.
  for (const char* node : {"01HZX9K3M4P7Q8R9S0T1V2W3XY", "01hzx9k3m4p7q8r9s0t1v2w3x", "01hzx9k3m4p7q8r9s0t1v2w3xyz",
                           "01hzx9k3m4p7q8r9s0t1v2w3xi", "01hzx9k3m4p7q8r9s0t1v2w3xl", "01hzx9k3m4p7q8r9s0t1v2w3xo",
                           "01hzx9k3m4p7q8r9s0t1v2w3xu", "01hzx9k3m4p7q8r9s0t1v2w3x_"}) {
    EXPECT_FALSE(make_tool_name("sysecho", node, "echo", "invoke").has_value()) << node;
  }
  // cap_id ^[a-z][a-z0-9_]{0,17}$
  for (const char* cap : {"", "Echo", "_echo", "9echo", "echo-1", "echo.1", "abcdefghijklmnopqrs"}) {
    EXPECT_FALSE(make_tool_name("sysecho", kNode, cap, "invoke").has_value()) << cap;
  }
  // verb: the RFC-0001 enum
  for (const char* verb : {"", "run", "INVOKE", "invoke_", "delete"}) {
    EXPECT_FALSE(make_tool_name("sysecho", kNode, "echo", verb).has_value()) << verb;
  }
  for (const char* verb : {"snapshot", "subscribe", "get", "set", "invoke", "stream"}) {
    EXPECT_TRUE(make_tool_name("sysecho", kNode, "echo", verb).has_value()) << verb;
  }
  EXPECT_TRUE(make_tool_name("s", kNode, "e", "get").has_value());  // minimum lengths
}

TEST(Projection, DashedAndDottedFormsRoundTrip) {
  const auto name = make_tool_name("sysecho", kNode, "echo", "invoke");
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(name->dashed(), "sysecho-01hzx9k3m4p7q8r9s0t1v2w3xy-echo-invoke");

  const auto from_dashed = parse_tool_name(name->dashed());
  const auto from_dotted = parse_tool_name(name->dotted());
  ASSERT_TRUE(from_dashed.has_value());
  ASSERT_TRUE(from_dotted.has_value());
  EXPECT_EQ(from_dashed->dotted(), name->dotted());
  EXPECT_EQ(from_dotted->dashed(), name->dashed());
  EXPECT_EQ(from_dashed->kind_short, "sysecho");
  EXPECT_EQ(from_dashed->node_id, kNode);
  EXPECT_EQ(from_dashed->cap_id, "echo");
  EXPECT_EQ(from_dashed->verb, "invoke");

  // Tokens with '_' survive both forms.
  const auto snake = make_tool_name("sys", kNode, "cpu_temp_2", "get");
  ASSERT_TRUE(snake.has_value());
  ASSERT_TRUE(parse_tool_name(snake->dashed()).has_value());
  EXPECT_EQ(parse_tool_name(snake->dashed())->dotted(), "sys.01hzx9k3m4p7q8r9s0t1v2w3xy.cpu_temp_2.get");
}

TEST(Projection, MalformedNamesAreRefused) {
  for (const char* bad : {"", "sysecho", "sysecho.01hzx9k3m4p7q8r9s0t1v2w3xy.echo",
                          "sysecho.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke.extra",
                          "sysecho.01hzx9k3m4p7q8r9s0t1v2w3xy-echo.invoke",  // mixed separators
                          "sysecho..echo.invoke", ".sysecho.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke",
                          "sysecho.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.invoke.",
                          "sysecho--01hzx9k3m4p7q8r9s0t1v2w3xy-echo-invoke",
                          "sysecho.01hzx9k3m4p7q8r9s0t1v2w3xy.echo.Invoke",
                          "sysecho 01hzx9k3m4p7q8r9s0t1v2w3xy echo invoke"}) {
    EXPECT_FALSE(parse_tool_name(bad).has_value()) << '"' << bad << '"';
  }
}

TEST(Scopes, ReadVerbsNeedReadOnlyWhateverTheClass) {
  for (const char* verb : {"snapshot", "subscribe", "get", "stream"}) {
    EXPECT_TRUE(is_read_verb(verb)) << verb;
    for (auto c : {SafetyClass::kReadOnly, SafetyClass::kReversible, SafetyClass::kPhysicalActuation}) {
      EXPECT_EQ(required_scope(c, verb), "tools:call:read_only") << verb;
    }
  }
  EXPECT_FALSE(is_read_verb("set"));
  EXPECT_FALSE(is_read_verb("invoke"));
  EXPECT_FALSE(is_read_verb("snapshots"));
}

TEST(Scopes, SetAndInvokeNeedTheCapabilitysClassScope) {
  for (const char* verb : {"set", "invoke"}) {
    EXPECT_EQ(required_scope(SafetyClass::kReadOnly, verb), "tools:call:read_only");
    EXPECT_EQ(required_scope(SafetyClass::kReversible, verb), "tools:call:reversible");
    EXPECT_EQ(required_scope(SafetyClass::kPhysicalActuation, verb), "tools:call:physical_actuation");
  }
}

TEST(Scopes, SafetyClassNamesRoundTrip) {
  for (auto c : {SafetyClass::kReadOnly, SafetyClass::kReversible, SafetyClass::kPhysicalActuation}) {
    EXPECT_EQ(safety_class_from_name(safety_class_name(c)), c);
  }
  EXPECT_EQ(safety_class_name(SafetyClass::kPhysicalActuation), "physical_actuation");
  EXPECT_EQ(safety_class_from_name("streaming"), std::nullopt);
  EXPECT_EQ(safety_class_from_name("READ_ONLY"), std::nullopt);
}

// A registry document in the schemas/kinds.json format.
std::string registry_text(std::string_view kind_short = "sysecho",
                          std::string_view description = "Echo on {node_id} via {cap_id}.",
                          std::string_view extra_row_field = "") {
  return std::string(R"({"kinds":[{"kind":"system.echo","kind_short":")") + std::string(kind_short) +
         R"(","schema_ref":"mcp://schemas/system.echo@1.0.0",)" + std::string(extra_row_field) +
         R"("verbs":[{"verb":"invoke","input":"mcp://schemas/system.echo.invoke.input@1.0.0",)"
         R"("output":"mcp://schemas/system.echo.invoke.output@1.0.0","description":")" +
         std::string(description) + R"("}]}]})";
}

TEST(KindRegistry, ReadsRowsAndRendersDescriptions) {
  const auto doc = json::parse_strict(registry_text()).value();
  const auto reg = KindRegistry::from_json(doc, "test-kinds.json");
  ASSERT_EQ(reg.all().size(), 1u);
  const auto* kind = reg.by_kind("system.echo");
  ASSERT_NE(kind, nullptr);
  EXPECT_EQ(reg.by_short("sysecho"), kind);
  EXPECT_EQ(reg.by_kind("system.metrics"), nullptr);
  EXPECT_EQ(reg.by_short("sys"), nullptr);
  EXPECT_EQ(kind->schema_ref, "mcp://schemas/system.echo@1.0.0");
  const auto* invoke = kind->verb("invoke");
  ASSERT_NE(invoke, nullptr);
  EXPECT_EQ(kind->verb("get"), nullptr);
  EXPECT_EQ(invoke->input_schema, "mcp://schemas/system.echo.invoke.input@1.0.0");
  EXPECT_EQ(invoke->output_schema, "mcp://schemas/system.echo.invoke.output@1.0.0");

  // RFC-0001 §3: no device-chosen string (node_id, cap_id) in a description.
  EXPECT_EQ(render_description(*invoke), "Echo on the device via the capability.");
}

// Doc 05 §9.2: a verb the registry does not mark is stable; a marked one is alpha or beta (or
// stable, said out loud); any other marking is refused, so a typo cannot promote a tool.
TEST(KindRegistry, VerbsAreStableUnlessMarkedAlphaOrBeta) {
  const std::string marked_verb =
      R"({"kinds":[{"kind":"system.echo","kind_short":"sysecho","schema_ref":"mcp://schemas/system.echo@1.0.0","verbs":[)"
      R"({"verb":"invoke","input":"mcp://schemas/a@1.0.0","output":"mcp://schemas/b@1.0.0","description":"d","stability":"%"}]}]})";
  const auto with = [&](std::string_view stability) {
    std::string text = marked_verb;
    text.replace(text.find('%'), 1, stability);
    return json::parse_strict(text).value();
  };
  const auto stability_of = [](const json::Document& doc) {
    return KindRegistry::from_json(doc, "test-kinds.json").by_kind("system.echo")->verb("invoke")->stability;
  };
  EXPECT_EQ(stability_of(json::parse_strict(registry_text()).value()), Stability::kStable);
  EXPECT_EQ(stability_of(with("alpha")), Stability::kAlpha);
  EXPECT_EQ(stability_of(with("beta")), Stability::kBeta);
  EXPECT_EQ(stability_of(with("stable")), Stability::kStable);
  EXPECT_EQ(stability_name(Stability::kBeta), "beta");
  for (const std::string_view bad : {"Beta", "experimental", ""}) {
    try {
      stability_of(with(bad));
      ADD_FAILURE() << "accepted stability " << bad;
    } catch (const Error& e) {
      EXPECT_NE(e.envelope().message.find("stability is not"), std::string::npos) << e.envelope().message;
    }
  }
}

TEST(KindRegistry, MalformedRowsAreRefusedNamingTheFile) {
  const std::vector<std::string> bad{
      registry_text("sysechoxx"),                                   // kind_short over 8 chars
      registry_text("SysEcho"),                                     // kind_short pattern
      registry_text("sysecho", "Runs {tool} on {node_id}."),        // a field other than the two
      registry_text("sysecho", "Unbalanced } brace."),
      registry_text("sysecho", "Non-ASCII \u00e9."),
      registry_text("sysecho", ""),
      registry_text("sysecho", "ok", R"("safety":"read_only",)"),  // unknown field
      R"({"kinds":[]})",
      R"({"rows":[]})",
      R"([])",
      R"({"kinds":[{"kind":"system.echo","kind_short":"sysecho","schema_ref":"mcp://schemas/system.echo@1.0.0","verbs":[]}]})",
      R"({"kinds":[{"kind":"system.echo","kind_short":"sysecho","schema_ref":"system.echo@1.0.0","verbs":[{"verb":"invoke","input":"mcp://schemas/a@1.0.0","output":"mcp://schemas/b@1.0.0","description":"d"}]}]})",
      R"({"kinds":[{"kind":"system.echo","kind_short":"sysecho","schema_ref":"mcp://schemas/system.echo@1.0.0","verbs":[{"verb":"run","input":"mcp://schemas/a@1.0.0","output":"mcp://schemas/b@1.0.0","description":"d"}]}]})",
      R"({"kinds":[{"kind":"system.echo","kind_short":"sysecho","schema_ref":"mcp://schemas/system.echo@1.0.0","verbs":[{"verb":"invoke","input":"mcp://schemas/a@1.0","output":"mcp://schemas/b@1.0.0","description":"d"}]}]})",
      // the same verb twice, the same kind twice, the same kind_short for two kinds
      R"({"kinds":[{"kind":"system.echo","kind_short":"sysecho","schema_ref":"mcp://schemas/system.echo@1.0.0","verbs":[{"verb":"invoke","input":"mcp://schemas/a@1.0.0","output":"mcp://schemas/b@1.0.0","description":"d"},{"verb":"invoke","input":"mcp://schemas/a@1.0.0","output":"mcp://schemas/b@1.0.0","description":"d"}]}]})",
      R"({"kinds":[{"kind":"system.echo","kind_short":"sysecho","schema_ref":"mcp://schemas/system.echo@1.0.0","verbs":[{"verb":"invoke","input":"mcp://schemas/a@1.0.0","output":"mcp://schemas/b@1.0.0","description":"d"}]},{"kind":"system.echo","kind_short":"sysecho2","schema_ref":"mcp://schemas/system.echo@1.0.0","verbs":[{"verb":"invoke","input":"mcp://schemas/a@1.0.0","output":"mcp://schemas/b@1.0.0","description":"d"}]}]})",
      R"({"kinds":[{"kind":"system.echo","kind_short":"sysecho","schema_ref":"mcp://schemas/system.echo@1.0.0","verbs":[{"verb":"invoke","input":"mcp://schemas/a@1.0.0","output":"mcp://schemas/b@1.0.0","description":"d"}]},{"kind":"system.other","kind_short":"sysecho","schema_ref":"mcp://schemas/system.echo@1.0.0","verbs":[{"verb":"invoke","input":"mcp://schemas/a@1.0.0","output":"mcp://schemas/b@1.0.0","description":"d"}]}]})",
  };
  for (const auto& text : bad) {
    const auto doc = json::parse_strict(text).value();
    try {
      KindRegistry::from_json(doc, "test-kinds.json");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInternal);
      EXPECT_NE(e.envelope().message.find("test-kinds.json"), std::string::npos) << e.envelope().message;
    }
  }
}

// docs/protocol.md D36: a read verb reads whatever the capability is; the
// self-update installs and restarts, so it is judged as physical actuation; the rest keep the
// capability's class.
TEST(Scopes, EachVerbCarriesItsOwnSafetyClass) {
  for (const char* verb : {"snapshot", "subscribe", "get", "stream"}) {
    EXPECT_EQ(verb_safety_class("gpio.pin", SafetyClass::kPhysicalActuation, verb), SafetyClass::kReadOnly) << verb;
    EXPECT_EQ(verb_safety_class("manage.server", SafetyClass::kReversible, verb), SafetyClass::kReadOnly) << verb;
  }
  EXPECT_EQ(verb_safety_class("manage.server", SafetyClass::kReversible, "invoke"), SafetyClass::kPhysicalActuation);
  EXPECT_EQ(verb_safety_class("gpio.pin", SafetyClass::kPhysicalActuation, "set"), SafetyClass::kPhysicalActuation);
  EXPECT_EQ(verb_safety_class("service.unit", SafetyClass::kReversible, "invoke"), SafetyClass::kReversible);
  EXPECT_EQ(verb_safety_class("camera.still", SafetyClass::kReversible, "invoke"), SafetyClass::kReversible);
}

}  // namespace
}  // namespace fleetmcp

// valijson, included the one way this project can use it (the schema registry, the parts of its
// validation, and their tests).
//
// valijson reports an unusable schema by calling abort() unless VALIJSON_USE_EXCEPTIONS is set;
// the registry must refuse the file instead. With the macro set, rapidjson_adapter.hpp would also
// redefine RAPIDJSON_ASSERT, which other translation units already use as RapidJSON's default:
// so the throwing valijson::throwRuntimeError is pulled in first and the adapter is included with
// the macro briefly unset. Include this header instead of any valijson header.
#pragma once

#define VALIJSON_USE_EXCEPTIONS 1
#include <valijson/exceptions.hpp>
#undef VALIJSON_USE_EXCEPTIONS
#include <valijson/adapters/rapidjson_adapter.hpp>
#define VALIJSON_USE_EXCEPTIONS 1

#include <valijson/constraint_builder.hpp>
#include <valijson/constraints/concrete_constraints.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validation_visitor.hpp>
#include <valijson/validator.hpp>

#include <regex>

namespace fleetmcp::schema_check {

// The visitor our fast path hands a constraint to (fast_visitor.cc), and the cache of compiled
// "pattern"s it takes: valijson 1.0.3 (Debian 13) made the regex engine a template parameter,
// 1.0 (Debian 12) compiles std::regex (cmake/Dependencies.cmake tells which one is installed).
#if FLEETMCP_VALIJSON_REGEX_ENGINE
using ValijsonRegex = valijson::DefaultRegexEngine;
template <typename Adapter>
using ValidationVisitor = valijson::ValidationVisitor<Adapter, ValijsonRegex>;
#else
using ValijsonRegex = std::regex;
template <typename Adapter>
using ValidationVisitor = valijson::ValidationVisitor<Adapter>;
#endif

}  // namespace fleetmcp::schema_check

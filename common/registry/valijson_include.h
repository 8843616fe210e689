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

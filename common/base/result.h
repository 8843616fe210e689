// Result<T>: a value, or the error envelope that says why there is none. The one way a function
// that can fail hands back its failure (docs/CONTRIBUTING.md "Errors"); Status is Result<void>.
//
//   Result<Manifest> parse(std::string_view text);
//   auto manifest = parse(text);
//   if (!manifest) return manifest.error();   // an ErrorEnvelope converts to any Result<U>
//   use(*manifest);
//
// A refusal that must carry more than the envelope (the gate's required scope, the HTTP reply
// refusing a caller, a fresh commit token) is its own type and the second parameter:
// Result<GatePass, CallRefusal>. Same ok(), value(), error(); no second template for it.
//
// value() of a failed Result throws the envelope as fleetmcp::Error: the one bridge to the places
// that must throw (a constructor, docs/CONTRIBUTING.md), and a loud failure for code that forgot
// to look. For a refusal type the envelope is its `error` member when it has one (envelope_of).
#pragma once

#include <concepts>
#include <type_traits>
#include <utility>
#include <variant>

#include "common/base/error.h"

namespace fleetmcp {

// What value() of a failed Result throws: the envelope itself, the `error` a refusal contains, or,
// for a refusal that carries none (an enum, an HTTP reply), a bug report: value() was not checked.
inline const ErrorEnvelope& envelope_of(const ErrorEnvelope& error) { return error; }
template <typename E>
  requires requires(const E& e) { { e.error } -> std::convertible_to<const ErrorEnvelope&>; }
const ErrorEnvelope& envelope_of(const E& refusal) {
  return refusal.error;
}
template <typename E>
ErrorEnvelope envelope_of(const E&) {
  return ErrorEnvelope(ErrorCode::kInternal, "value() of a refused result", "report this as a bug");
}

template <typename T, typename E = ErrorEnvelope>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, E>, "a Result of an error is a Status");

 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit on purpose
  Result(E error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT
  template <typename U>
    requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::remove_cvref_t<U>, Result> &&
             !std::is_same_v<std::remove_cvref_t<U>, E>)
  Result(U&& value) : state_(std::in_place_index<0>, std::forward<U>(value)) {}  // NOLINT

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    throw_if_error();
    return std::get<0>(state_);
  }
  const T& value() const& {
    throw_if_error();
    return std::get<0>(state_);
  }
  T&& value() && {
    throw_if_error();
    return std::get<0>(std::move(state_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // Only when !ok().
  const E& error() const& { return std::get<1>(state_); }
  E&& error() && { return std::get<1>(std::move(state_)); }

 private:
  void throw_if_error() const {
    if (!ok()) throw Error(envelope_of(std::get<1>(state_)));
  }

  std::variant<T, E> state_;
};

template <typename E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;                                                  // success
  Result(E error) : error_(std::move(error)), failed_(true) {}  // NOLINT

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  // Throws the envelope when failed; nothing otherwise.
  void value() const {
    if (failed_) throw Error(envelope_of(error_));
  }
  // Only when !ok().
  const E& error() const& { return error_; }
  E&& error() && { return std::move(error_); }

 private:
  E error_{};
  bool failed_ = false;
};

using Status = Result<void>;

}  // namespace fleetmcp

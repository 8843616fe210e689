// Result<T>: a value, or the error envelope that says why there is none. The one way a function
// that can fail hands back its failure (docs/CONTRIBUTING.md "Errors"); Status is Result<void>.
//
//   Result<Manifest> parse(std::string_view text);
//   auto manifest = parse(text);
//   if (!manifest) return manifest.error();   // an ErrorEnvelope converts to any Result<U>
//   use(*manifest);
//
// value() of a failed Result throws its envelope as fleetmcp::Error: the one bridge to the places
// that must throw (a constructor, docs/CONTRIBUTING.md), and a loud failure for code that forgot
// to look.
#pragma once

#include <type_traits>
#include <utility>
#include <variant>

#include "common/base/error.h"

namespace fleetmcp {

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::remove_cv_t<T>, ErrorEnvelope>, "a Result of an error is a Status");

 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}          // NOLINT: implicit on purpose
  Result(ErrorEnvelope error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT
  template <typename U>
    requires(std::is_constructible_v<T, U &&> && !std::is_same_v<std::remove_cvref_t<U>, Result> &&
             !std::is_same_v<std::remove_cvref_t<U>, ErrorEnvelope>)
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
  const ErrorEnvelope& error() const& { return std::get<1>(state_); }
  ErrorEnvelope&& error() && { return std::get<1>(std::move(state_)); }

 private:
  void throw_if_error() const {
    if (!ok()) throw Error(std::get<1>(state_));
  }

  std::variant<T, ErrorEnvelope> state_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;                                           // success
  Result(ErrorEnvelope error) : error_(std::move(error)), failed_(true) {}  // NOLINT

  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  // Throws the envelope when failed; nothing otherwise.
  void value() const {
    if (failed_) throw Error(error_);
  }
  // Only when !ok().
  const ErrorEnvelope& error() const& { return error_; }
  ErrorEnvelope&& error() && { return std::move(error_); }

 private:
  ErrorEnvelope error_;
  bool failed_ = false;
};

using Status = Result<void>;

}  // namespace fleetmcp

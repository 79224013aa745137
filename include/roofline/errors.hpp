// Errors thrown at the boundaries (io, cli). The engine does not throw for valid input.
#pragma once

#include <stdexcept>
#include <string>

namespace roofline {

/// Base of every error the CLI reports as `roofline: error: <message>`.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
  [[nodiscard]] virtual int exit_code() const { return 1; }
};

/// Bad preset, file or value: exit 1.
struct InputError : Error {
  using Error::Error;
};

/// Bad flags or arguments: exit 2.
struct UsageError : Error {
  using Error::Error;
  [[nodiscard]] int exit_code() const override { return 2; }
};

}  // namespace roofline

// The whole program in-process, as the CLI tests of issue 23 run it: exit code, stdout, stderr.
#pragma once

#include "cli/app.hpp"

#include <sstream>
#include <string>
#include <vector>

namespace roofline_test {

struct CliRun {
  int code = 0;
  std::string out;
  std::string err;
};

inline CliRun run_cli(const std::vector<std::string>& args) {
  std::istringstream in;
  std::ostringstream out;
  std::ostringstream err;
  const int code = roofline::cli::run_cli(args, in, out, err, {});
  return {code, out.str(), err.str()};
}

}  // namespace roofline_test

// roofline: forwards to run_cli with the real streams and environment.
#include "cli/app.hpp"

#include <cstdlib>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  roofline::cli::Env env;
  env.stdout_is_tty = isatty(STDOUT_FILENO) != 0;
  env.no_color = std::getenv("NO_COLOR") != nullptr && *std::getenv("NO_COLOR") != '\0';
  const char* force = std::getenv("CLICOLOR_FORCE");
  env.clicolor_force = force != nullptr && std::string(force) != "0";
  const char* term = std::getenv("TERM");
  env.term_dumb = term != nullptr && std::string(term) == "dumb";
  if (const char* p = std::getenv("ROOFLINE_PRESET_PATH")) env.preset_path = p;
  const int code = roofline::cli::run_cli(args, std::cin, std::cout, std::cerr, env);
  std::cout.flush();
  return code;
}

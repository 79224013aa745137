// roofline: forwards to run_cli with the real streams and environment.
#include "cli/app.hpp"

#include <cstdlib>
#include <iostream>
#include <string>
#include <sys/ioctl.h>
#include <unistd.h>
#include <vector>

namespace {

// COLUMNS when set to a number; 0 otherwise.
int columns_variable() {
  if (const char* c = std::getenv("COLUMNS"); c != nullptr && *c != '\0') {
    char* end = nullptr;
    const long n = std::strtol(c, &end, 10);
    if (*end == '\0' && n > 0 && n < 100000) return static_cast<int>(n);
  }
  return 0;
}

// The terminal's width for pictures: COLUMNS when set to a number, else the tty's; 0 when unknown.
int terminal_columns(bool tty) {
  if (const int n = columns_variable(); n > 0) return n;
  winsize w{};
  if (tty && ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  std::vector<std::string> args(argv + 1, argv + argc);
  roofline::cli::Env env;
  env.stdout_is_tty = isatty(STDOUT_FILENO) != 0;
  env.stderr_is_tty = isatty(STDERR_FILENO) != 0;
  env.no_color = std::getenv("NO_COLOR") != nullptr && *std::getenv("NO_COLOR") != '\0';
  const char* force = std::getenv("CLICOLOR_FORCE");
  env.clicolor_force = force != nullptr && std::string(force) != "0";
  const char* term = std::getenv("TERM");
  env.term_dumb = term != nullptr && std::string(term) == "dumb";
  if (const char* p = std::getenv("ROOFLINE_PRESET_PATH")) env.preset_path = p;
  env.columns = terminal_columns(env.stdout_is_tty);
  env.columns_variable = columns_variable();
  const int code = roofline::cli::run_cli(args, std::cin, std::cout, std::cerr, env);
  std::cout.flush();
  // Whatever run_cli wrote (--help and --version too) must have reached stdout: a full disk or a
  // closed stdout is an error, not a silent success. A failed run has said why already.
  if (!std::cout && code == 0) {
    std::cerr << "roofline: error: writing the output failed (disk full or stdout closed?)\n";
    return 1;
  }
  return code;
}

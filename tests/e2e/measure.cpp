// measure FILE COMMAND [ARGS...]: runs COMMAND with this process's standard streams, writes its
// user + system CPU seconds and peak RSS in KiB ("0.123 45678") to FILE, and exits with its exit
// code (128 + the signal that ended it). tests/e2e/bounds_test.py runs every row through it: a
// forked child's peak RSS counts its parent's pages until it execs, so the parent must be small.
#include <cstdio>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: measure FILE COMMAND [ARGS...]\n");
    return 2;
  }
  const pid_t pid = fork();
  if (pid < 0) return 2;
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    std::perror(argv[2]);
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (wait4(pid, &status, 0, &usage) != pid) return 2;
  FILE* out = std::fopen(argv[1], "w");
  if (out == nullptr) return 2;
  const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  std::fprintf(out, "%.3f %ld\n", cpu, usage.ru_maxrss);
  std::fclose(out);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

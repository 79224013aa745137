// Reading presets, config files and stdin: only regular files, at most 64 MiB, and every JSON
// failure (syntax or a number out of range) reported as "<where>: invalid JSON: ..." (reliability
// R2, R11).
#include "io/preset_registry.hpp"

#include "roofline/errors.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <sstream>
#include <streambuf>
#include <string>
#include <sys/stat.h>

#include "io_test_support.hpp"

using namespace roofline;
using namespace roofline::io;
using roofline_test::TempDir;

namespace {

// An endless stream of '{', like `roofline params - < /dev/zero`.
class EndlessBuf : public std::streambuf {
 public:
  EndlessBuf() { setg(buf_, buf_, buf_ + sizeof buf_); }

 protected:
  int_type underflow() override {
    setg(buf_, buf_, buf_ + sizeof buf_);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  char buf_[4096] = {'{'};
};

}  // namespace

TEST_CASE("io: read_file refuses what is not a regular file", "[io][read]") {
  const TempDir dir;
  const std::string fifo = dir.str() + "/fifo.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  // Opening a FIFO would block forever; it is refused by type before any open.
  REQUIRE_THROWS_WITH(read_file(fifo), fifo + ": not a regular file, expected a JSON file");
  REQUIRE_THROWS_WITH(read_file("/dev/zero"), "/dev/zero: not a regular file, expected a JSON file");
  const std::string link = dir.str() + "/z.json";
  std::filesystem::create_symlink("/dev/zero", link);
  REQUIRE_THROWS_WITH(read_file(link), link + ": not a regular file, expected a JSON file");
  REQUIRE_THROWS_WITH(read_file(dir.str()), dir.str() + ": is a directory, expected a JSON file");
  REQUIRE_THROWS_WITH(read_file(dir.str() + "/absent.json"),
                      dir.str() + "/absent.json: cannot open file: No such file or directory");
  // A symlink to a regular file is read as that file.
  const std::string target = dir.write("real.json", "{}");
  std::filesystem::create_symlink(target, dir.str() + "/alias.json");
  CHECK(read_file(dir.str() + "/alias.json") == "{}");
}

TEST_CASE("io: a FIFO in a preset directory is an error, not a hang", "[io][read]") {
  const TempDir dir;
  std::filesystem::create_directories(dir.str() + "/models");
  const std::string fifo = dir.str() + "/models/x.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE_THROWS_WITH(PresetRegistry({dir.str()}), fifo + ": not a regular file, expected a JSON file");
}

TEST_CASE("io: files and stdin are capped at 64 MiB", "[io][read]") {
  const TempDir dir;
  const std::string big = dir.write("big.json", "");
  std::filesystem::resize_file(big, kMaxInputBytes + 1);  // sparse: no 64 MiB written
  REQUIRE_THROWS_WITH(read_file(big), big + ": larger than 64 MiB; a preset or config.json is a few kB");
  const std::string fits = dir.write("fits.json", "");
  std::filesystem::resize_file(fits, 1 << 20);
  CHECK(read_file(fits).size() == std::size_t{1} << 20);

  EndlessBuf endless;
  std::istream in(&endless);
  REQUIRE_THROWS_WITH(read_stream(in, "<stdin>"), "<stdin>: larger than 64 MiB; a preset or config.json is a few kB");
  const PresetRegistry r({});
  std::istream in2(&endless);
  REQUIRE_THROWS_WITH(r.load_model("-", in2), "<stdin>: larger than 64 MiB; a preset or config.json is a few kB");
}

TEST_CASE("io: parse_json_text reports every JSON failure with where it happened", "[io][read]") {
  REQUIRE_THROWS_WITH(parse_json_text("1e400", "n.json"),
                      "n.json: /: 1e400 is out of range for a number (at most about 1.8e308 in magnitude)");
  REQUIRE_THROWS_WITH(parse_json_text(R"({"hidden_size": -1e999})", "c.json"),
                      "c.json: /hidden_size: -1e999 is out of range for a number (at most about 1.8e308 in magnitude)");
  REQUIRE_THROWS_WITH(parse_json_text("{", "b.json"), Catch::StartsWith("b.json: invalid JSON: parse error"));
  REQUIRE_THROWS_AS(parse_json_text("1e400", "n.json"), InputError);
  const PresetRegistry r({});
  std::istringstream in(R"({"model_type":"llama","hidden_size":1e400})");
  REQUIRE_THROWS_WITH(r.load_model("-", in),
                      "<stdin>: /hidden_size: 1e400 is out of range for a number (at most about 1.8e308 in magnitude)");
}

#include "fuzz_common.hpp"

#include "cli/app.hpp"
#include "io/sweep.hpp"

#include "roofline/checked.hpp"
#include "roofline/errors.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <sstream>
#include <streambuf>
#include <unistd.h>

namespace roofline::fuzz {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string lowered(std::string_view s) {
  std::string l(s);
  std::transform(l.begin(), l.end(), l.begin(), lower);
  return l;
}

bool is_alnum(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A wrapped 64-bit integer: 2^64 - k printed unsigned (20 digits from 1844674407...), or a value
// at the int64 limits (19 digits from 922337203685477580).
bool wrapped_digits(std::string_view digits) {
  return (digits.size() == 20 && digits.starts_with("1844674407")) ||
         (digits.size() == 19 && digits.starts_with("922337203685477580"));
}

std::string without_commas(std::string_view s) {
  std::string r;
  for (char c : s) {
    if (c != ',') r += c;
  }
  return r;
}

// The sandbox: a temporary directory with a few small input files, removed at exit.
struct Sandbox {
  std::string dir;
  int home = -1;  // the working directory to return to
  std::vector<std::string> files;

  Sandbox() {
    std::array<char, 64> templ{};
    std::snprintf(templ.data(), templ.size(), "/tmp/roofline-fuzz-XXXXXX");
    if (mkdtemp(templ.data()) == nullptr) finding("sandbox", "mkdtemp failed");
    dir = templ.data();
    write("m.json",
          R"({"model_type":"llama","hidden_size":512,"intermediate_size":1408,"num_hidden_layers":4,)"
          R"("num_attention_heads":8,"num_key_value_heads":2,"vocab_size":32000,"max_position_embeddings":4096})");
    write("g.json", R"({"name":"g","source":"fuzz","memory_capacity":"24 GB","memory_bandwidth":"1 TB/s",)"
                    R"("peak":{"bf16":"100 TFLOP/s","fp8":"200 TFLOP/s"}})");
    write("p.jsonl",
          "{\"command\":\"decode\",\"model\":\"m.json\",\"gpu\":\"g.json\",\"batch\":4}\n"
          "{\"command\":\"params\",\"model\":\"llama3-8b\"}\n");
    home = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (home < 0) finding("sandbox", "cannot open the working directory");
  }
  ~Sandbox() {
    for (const std::string& f : files) std::remove(f.c_str());
    rmdir(dir.c_str());
    if (home >= 0) close(home);
  }
  Sandbox(const Sandbox&) = delete;
  Sandbox& operator=(const Sandbox&) = delete;
  Sandbox(Sandbox&&) = delete;
  Sandbox& operator=(Sandbox&&) = delete;

  void write(const char* name, std::string_view text) {
    const std::string path = dir + "/" + name;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr) finding("sandbox", "cannot write " + path);
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    files.push_back(path);
  }
};

Sandbox& sandbox() {
  static Sandbox s;
  return s;
}

// stdout capped at 1 MiB: a streamed sweep of a billion points is the product working as designed,
// and the cap stops it in bounded time (the run is then not checked).
class CappedBuffer : public std::stringbuf {
 public:
  static constexpr std::streamsize kCap = std::streamsize{1} << 20;
  bool hit = false;

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (written_ + n > kCap) {
      hit = true;
      return 0;
    }
    written_ += n;
    return std::stringbuf::xsputn(s, n);
  }
  int_type overflow(int_type c) override {
    if (written_ + 1 > kCap) {
      hit = true;
      return traits_type::eof();
    }
    ++written_;
    return std::stringbuf::overflow(c);
  }

 private:
  std::streamsize written_ = 0;
};

bool allow_control() {
  static const bool allow = [] {
    const char* v = std::getenv("ROOFLINE_FUZZ_ALLOW_CONTROL");
    return v != nullptr && *v != '\0' && std::string_view(v) != "0";
  }();
  return allow;
}

}  // namespace

void finding(std::string_view what, std::string_view evidence) {
  std::fprintf(stderr, "\n==roofline-fuzz== FINDING: %.*s\n", static_cast<int>(what.size()), what.data());
  const std::size_t n = std::min<std::size_t>(evidence.size(), 4000);
  std::fprintf(stderr, "==roofline-fuzz== evidence (%zu bytes):\n%.*s\n==roofline-fuzz== end\n", evidence.size(),
               static_cast<int>(n), evidence.data());
  std::abort();
}

std::string bad_number(std::string_view text, std::string_view input) {
  const std::string in = lowered(input);
  const std::string in_digits = without_commas(input);
  std::size_t i = 0;
  while (i < text.size()) {
    if (is_alnum(text[i])) {
      std::size_t j = i;
      while (j < text.size() && is_alnum(text[j])) ++j;
      const std::string word = lowered(text.substr(i, j - i));
      // AMD's "Infinity Fabric" (an interconnect's name in the presets) is a word, not a number.
      const bool fabric = word == "infinity" && lowered(text.substr(j, 7)) == " fabric";
      if ((word == "nan" || word == "inf" || word == "infinity") && !fabric && in.find(word) == std::string::npos) {
        return "the word \"" + std::string(text.substr(i, j - i)) + "\"";
      }
      // A digit run with its group separators, unless it is a fraction's digits or an exponent.
      if (is_digit(text[i]) && (i == 0 || (text[i - 1] != '.' && text[i - 1] != 'e' && text[i - 1] != 'E'))) {
        std::size_t k = i;
        while (k < text.size() &&
               (is_digit(text[k]) || (text[k] == ',' && k + 1 < text.size() && is_digit(text[k + 1]))))
          ++k;
        const std::string digits = without_commas(text.substr(i, k - i));
        if (wrapped_digits(digits) && in_digits.find(digits.substr(0, 15)) == std::string::npos) {
          return "the wrapped integer " + std::string(text.substr(i, k - i));
        }
        j = std::max(j, k);
      }
      i = j;
    } else {
      ++i;
    }
  }
  return {};
}

TempDir::TempDir(std::string_view name) {
  std::string templ = "/tmp/roofline-fuzz-" + std::string(name) + "-XXXXXX";
  if (mkdtemp(templ.data()) == nullptr) finding(name, "mkdtemp failed");
  dir = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

bool reaches_outside(std::string_view text) {
  if (text == ".." || text.find("../") != std::string_view::npos || text.find("/..") != std::string_view::npos)
    return true;
  const std::string l = lowered(text);
  if (l.find("\\u002") != std::string::npos) return true;  // a JSON escape of '.', '/' and the like
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '/') continue;
    // A slash inside a word ("TB/s", "dir/file") stays relative; one after anything else can start
    // an absolute path ("/etc", "--gpu=/x", "\"/x\"", "a,/x", "\\/").
    if (i == 0) return true;
    const char p = text[i - 1];
    if (!(is_alnum(p) || p == '_' || p == '-' || p == '.')) return true;
  }
  return false;
}

bool args_allowed(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (reaches_outside(a)) return false;
    if (a.starts_with("--preset") || a.starts_with("--svg")) return false;
    // -o FILE, -oFILE, -qo FILE: a cluster of short flags with o in it.
    if (a.size() >= 2 && a[0] == '-' && a[1] != '-' && a.find('o') != std::string::npos) return false;
    // A sweep of counts held whole has up to a million points and a streamed one up to 10^12: the
    // product working as designed. Keep each swept value list small so one run stays short.
    std::string_view v = a;
    if (v.starts_with("--") && v.find('=') != std::string_view::npos) {
      v = v.substr(v.find('=') + 1);
    } else if (v.size() > 2 && v[0] == '-' && v[1] != '-') {
      v = v.substr(2);
    }
    if (io::is_sweep_text(v)) {
      try {
        (void)io::expand_counts(v, 64);
      } catch (const Error& e) {
        if (std::string_view(e.what()).find("more than") != std::string_view::npos) return false;
      } catch (const OverflowError&) {
      }
    }
  }
  return true;
}

CliRun run_cli_sandboxed(const std::vector<std::string>& args, std::string_view stdin_text) {
  Sandbox& box = sandbox();
  std::istringstream in{std::string(stdin_text)};
  CappedBuffer out_buf;
  std::ostream out(&out_buf);
  std::ostringstream err;
  if (chdir(box.dir.c_str()) != 0) finding("sandbox", "chdir failed");
  CliRun r;
  r.code = cli::run_cli(args, in, out, err, cli::Env{});
  if (fchdir(box.home) != 0) finding("sandbox", "fchdir failed");
  r.out = out_buf.str();
  r.err = err.str();
  if (out_buf.hit) r.code = -1;  // capped: not checked
  return r;
}

void check_contract(const CliRun& r, std::string_view input) {
  if (r.code == -1) return;
  const std::string all = "exit " + std::to_string(r.code) + "\n--- stdout\n" + r.out + "\n--- stderr\n" + r.err;
  if (r.code != 0 && r.code != 1 && r.code != 2 && r.code != 3) finding("exit code is not 0, 1, 2 or 3", all);
  bool error_line = false;
  if (!r.err.empty() && r.err.back() != '\n') finding("stderr does not end with a newline", all);
  std::size_t start = 0;
  while (start < r.err.size()) {
    const std::size_t end = r.err.find('\n', start);
    const std::string_view line = std::string_view(r.err).substr(start, end - start);
    start = end + 1;
    if (line.starts_with("roofline: error: ")) {
      error_line = true;
    } else if (!line.starts_with("roofline: warning: ")) {
      finding("a stderr line is neither \"roofline: error:\" nor \"roofline: warning:\"", all);
    }
    if (!allow_control()) {
      for (char c : line) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) finding("a raw control character on stderr", all);
      }
    }
  }
  if (error_line && !r.out.empty()) finding("an error on stderr, and output on stdout", all);
  if ((r.code == 1 || r.code == 2) && r.out.empty() && !error_line) finding("a failure that says nothing", all);
  if (r.code == 0 && error_line) finding("an error line, and exit 0", all);
  // The numbers of the answer; the error records of a stream (batch, a sweep) echo the input.
  start = 0;
  while (start < r.out.size()) {
    std::size_t end = r.out.find('\n', start);
    if (end == std::string::npos) end = r.out.size();
    const std::string_view line = std::string_view(r.out).substr(start, end - start);
    start = end + 1;
    if (line.find("error") != std::string_view::npos) continue;
    if (const std::string bad = bad_number(line, input); !bad.empty()) finding("stdout prints " + bad, all);
  }
}

void check_message(std::string_view message, bool one_line) {
  if (message.empty()) finding("an empty error message", message);
  for (char c : message) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n' && (!one_line || allow_control())) continue;
    if (c == '\n') finding("a one-line error message has a newline", message);
    if (!allow_control() && (u < 0x20 || u == 0x7f)) finding("a raw control character in an error message", message);
  }
}

void split_input(const std::uint8_t* data, std::size_t size, std::vector<std::string>& args, std::string& stdin_text) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const std::size_t marker = bytes.find('\x01');
  const std::string_view argv = bytes.substr(0, marker);
  if (marker != std::string_view::npos) stdin_text = std::string(bytes.substr(marker + 1));
  std::size_t start = 0;
  while (!argv.empty() && start <= argv.size()) {
    std::size_t end = argv.find('\0', start);
    if (end == std::string_view::npos) end = argv.size();
    args.emplace_back(argv.substr(start, end - start));
    start = end + 1;
  }
}

}  // namespace roofline::fuzz

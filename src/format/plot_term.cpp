// A chart in the terminal. Lines are drawn in braille (U+2800: 2 x 4 dots a character), marks and
// labels are characters over them, bars are block characters (one shade per term, so they read
// without colour). Every line is built as cells and cut at the width, so none is wider.
#include "format/plot.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>

namespace roofline::format::plot {
namespace {

constexpr int kMinColumns = 40;
constexpr std::array<std::string_view, 8> kAnsi = {"34", "33", "32", "35", "31", "36", "93", "90"};
constexpr std::array<std::string_view, 6> kShadeAnsi = {"34", "33", "90", "37", "32", "35"};
// Six glyphs, so the terms read apart without colour too (NO_COLOR).
constexpr std::array<char32_t, 6> kShadeGlyph = {U'\u2588', U'\u2593', U'\u2592', U'\u2591', U'\u259A', U'\u2586'};

// A character cell: braille dots, or a character (a mark or a letter of a label), with its colour.
// Colours: -1 none, 0.. the accelerator palette, 100 + i the bar shades.
struct Cell {
  char32_t ch = U' ';
  std::uint8_t dots = 0;
  int colour = -1;
  bool text = false;
};

using Line = std::vector<Cell>;

std::u32string decode(std::string_view s) {
  std::u32string out;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    char32_t cp = c;
    std::size_t n = 1;
    if (c >= 0xF0) {
      cp = c & 0x07U;
      n = 4;
    } else if (c >= 0xE0) {
      cp = c & 0x0FU;
      n = 3;
    } else if (c >= 0xC0) {
      cp = c & 0x1FU;
      n = 2;
    }
    for (std::size_t k = 1; k < n && i + k < s.size(); ++k)
      cp = (cp << 6U) | (static_cast<unsigned char>(s[i + k]) & 0x3FU);
    // Control characters (an escape in a model name) would break the picture: shown as '?'.
    out += cp < 0x20 || cp == 0x7F ? U'?' : cp;
    i += n;
  }
  return out;
}

void encode(char32_t cp, std::string& out) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0U | (cp >> 6U));
    out += static_cast<char>(0x80U | (cp & 0x3FU));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0U | (cp >> 12U));
    out += static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU));
    out += static_cast<char>(0x80U | (cp & 0x3FU));
  } else {
    out += static_cast<char>(0xF0U | (cp >> 18U));
    out += static_cast<char>(0x80U | ((cp >> 12U) & 0x3FU));
    out += static_cast<char>(0x80U | ((cp >> 6U) & 0x3FU));
    out += static_cast<char>(0x80U | (cp & 0x3FU));
  }
}

Line text_line(std::string_view s, int colour = -1) {
  Line l;
  for (const char32_t c : decode(s)) l.push_back({c, 0, colour, true});
  return l;
}

void append(Line& l, std::string_view s, int colour = -1) {
  const Line t = text_line(s, colour);
  l.insert(l.end(), t.begin(), t.end());
}

std::string_view ansi(int colour) {
  if (colour >= 100) return kShadeAnsi.at(static_cast<std::size_t>(colour - 100) % kShadeAnsi.size());
  return kAnsi.at(static_cast<std::size_t>(colour) % kAnsi.size());
}

// Cells to UTF-8, cut at `width`, trailing blanks dropped; colour codes only with `color`.
std::string serialize(const Line& line, int width, bool color) {
  std::size_t n = std::min(line.size(), static_cast<std::size_t>(width));
  while (n > 0 && line[n - 1].ch == U' ' && line[n - 1].dots == 0) --n;
  std::string out;
  int current = -1;
  for (std::size_t i = 0; i < n; ++i) {
    const Cell& c = line[i];
    const bool blank = c.ch == U' ' && c.dots == 0;
    const int want = blank ? current : c.colour;
    if (color && want != current) {
      out += want < 0 ? std::string("\x1b[0m") : "\x1b[" + std::string(ansi(want)) + "m";
      current = want;
    }
    encode(c.dots != 0 && !c.text ? static_cast<char32_t>(0x2800U + c.dots) : c.ch, out);
  }
  if (color && current >= 0) out += "\x1b[0m";
  return out + "\n";
}

std::vector<std::string> wrap(const std::string& s, std::size_t width) {
  std::vector<std::string> lines;
  std::u32string line;
  const std::u32string text = decode(s);
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(U' ', at);
    if (end == std::u32string::npos) end = text.size();
    std::u32string word = text.substr(at, end - at);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      std::string u;
      for (const char32_t c : line) encode(c, u);
      lines.push_back(u);
      line.clear();
    }
    if (!line.empty()) line += U' ';
    line += word;
    at = end + 1;
  }
  if (!line.empty()) {
    std::string u;
    for (const char32_t c : line) encode(c, u);
    lines.push_back(u);
  }
  return lines;
}

char32_t glyph(Mark m, bool hollow) {
  switch (m) {
    case Mark::circle:
      return hollow ? U'\u25CB' : U'\u25CF';
    case Mark::square:
      return hollow ? U'\u25A1' : U'\u25A0';
    case Mark::diamond:
      return hollow ? U'\u25C7' : U'\u25C6';
    case Mark::triangle:
      return hollow ? U'\u25B3' : U'\u25B2';
    case Mark::triangle_down:
      return hollow ? U'\u25BD' : U'\u25BC';
    case Mark::cross:
      return U'+';
    case Mark::none:
      break;
  }
  return U' ';
}

// The plot area: w x h cells, 2w x 4h dots.
class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), cells_(static_cast<std::size_t>(w * h)) {}

  [[nodiscard]] int width() const { return w_; }
  [[nodiscard]] int height() const { return h_; }
  [[nodiscard]] double dot_x(const Axis& a, double v) const { return position(a, v) * (2.0 * w_ - 1.0); }
  [[nodiscard]] double dot_y(const Axis& a, double v) const { return (1.0 - position(a, v)) * (4.0 * h_ - 1.0); }

  void line(double x0, double y0, double x1, double y1, int colour, bool dashed) {
    const double steps = std::ceil(std::max(std::fabs(x1 - x0), std::fabs(y1 - y0))) + 1.0;
    if (!std::isfinite(steps) || steps > 1e6) return;
    const auto n = static_cast<int>(steps);
    for (int i = 0; i < n; ++i) {
      if (dashed && (i / 2) % 2 == 1) continue;
      const double t = n == 1 ? 0.0 : static_cast<double>(i) / (n - 1);
      dot(static_cast<int>(std::lround(x0 + t * (x1 - x0))), static_cast<int>(std::lround(y0 + t * (y1 - y0))), colour);
    }
  }

  void dot(int x, int y, int colour) {
    if (x < 0 || y < 0 || x >= 2 * w_ || y >= 4 * h_) return;
    static constexpr std::array<std::array<std::uint8_t, 4>, 2> kBits = {
        {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}}};
    Cell& c = at(x / 2, y / 4);
    if (c.text) return;
    c.dots = static_cast<std::uint8_t>(c.dots |
                                       kBits.at(static_cast<std::size_t>(x % 2)).at(static_cast<std::size_t>(y % 4)));
    c.colour = colour;
  }

  /// Writes s at (col, row) if every cell is inside and none holds a character yet.
  bool put(int col, int row, const std::u32string& s, int colour) {
    if (row < 0 || row >= h_ || col < 0 || col + static_cast<int>(s.size()) > w_) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if (at(col + static_cast<int>(i), row).text) return false;
    }
    for (std::size_t i = 0; i < s.size(); ++i) at(col + static_cast<int>(i), row) = {s[i], 0, colour, true};
    return true;
  }

  [[nodiscard]] const Cell& cell(int col, int row) const { return cells_[static_cast<std::size_t>(row * w_ + col)]; }

 private:
  Cell& at(int col, int row) { return cells_[static_cast<std::size_t>(row * w_ + col)]; }
  int w_;
  int h_;
  std::vector<Cell> cells_;
};

int row_of(const Canvas& cv, const Axis& a, double v) { return static_cast<int>(std::lround(cv.dot_y(a, v))) / 4; }
int col_of(const Canvas& cv, const Axis& a, double v) { return static_cast<int>(std::lround(cv.dot_x(a, v))) / 2; }

void header(std::vector<Line>& out, const Chart& c, int width) {
  for (const std::string& t : {c.title, c.subtitle}) {
    for (const std::string& w : wrap(t, static_cast<std::size_t>(width))) out.push_back(text_line(w));
  }
}

void legend_and_notes(std::vector<Line>& out, const Chart& c, int width) {
  // Swatches of bar terms share a line; every other item has its own.
  Line shades;
  for (const LegendItem& it : c.legend) {
    const int col = it.shade >= 0 ? 100 + it.shade : it.colour;
    if (it.shade >= 0) {
      if (!shades.empty()) append(shades, "  ");
      shades.push_back({kShadeGlyph.at(static_cast<std::size_t>(it.shade) % kShadeGlyph.size()), 0, col, true});
      append(shades, " " + it.text);
      continue;
    }
    Line l;
    if (it.line) l.push_back({it.dashed ? U'\u254D' : U'\u2501', 0, col, true});
    if (it.mark != Mark::none) l.push_back({glyph(it.mark, it.hollow), 0, col, true});
    if (!it.line && it.mark == Mark::none) l.push_back({U'\u2501', 0, col, true});
    std::string text = it.text;
    for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', nl)) text.replace(nl, 1, "; ");
    append(l, " " + text);
    out.push_back(l);
  }
  if (!shades.empty()) out.push_back(shades);
  for (const std::string& n : c.notes) {
    for (const std::string& w : wrap(n, static_cast<std::size_t>(width))) out.push_back(text_line(w));
  }
}

std::vector<Line> xy_picture(const Chart& c, int width) {
  std::vector<Line> out;
  header(out, c, width);
  out.push_back(text_line(c.y.title));
  // The margin holds the y tick labels and the axis.
  std::vector<double> yt = ticks(c.y);
  std::size_t label_w = 1;
  for (const double t : yt) {
    if (major_tick(c.y, t)) label_w = std::max(label_w, decode(tick_label(c.y, t)).size());
  }
  const int margin = static_cast<int>(label_w) + 1;
  const int w = width - margin;
  const int h = std::clamp(width / 4, 12, 24);
  Canvas cv(w, h);
  for (const Series& s : c.series) {
    for (std::size_t i = 1; i < s.xy.size(); ++i) {
      cv.line(cv.dot_x(c.x, s.xy[i - 1].first), cv.dot_y(c.y, s.xy[i - 1].second), cv.dot_x(c.x, s.xy[i].first),
              cv.dot_y(c.y, s.xy[i].second), s.colour, s.dashed || s.thin);
    }
  }
  const auto inside = [&](double x, double y) {
    const double px = position(c.x, x);
    const double py = position(c.y, y);
    return px >= -1e-9 && px <= 1 + 1e-9 && py >= -1e-9 && py <= 1 + 1e-9;
  };
  for (const Series& s : c.series) {
    if (s.mark == Mark::none) continue;
    for (const auto& [x, y] : s.xy) {
      if (inside(x, y)) cv.put(col_of(cv, c.x, x), row_of(cv, c.y, y), {glyph(s.mark, s.hollow)}, s.colour);
    }
  }
  for (const Point& p : c.points) {
    if (inside(p.x, p.y)) cv.put(col_of(cv, c.x, p.x), row_of(cv, c.y, p.y), {glyph(p.mark, p.hollow)}, p.colour);
  }
  // The points' labels beside their marks first (they name what is measured).
  for (const Point& p : c.points) {
    if (p.label.empty() || !inside(p.x, p.y)) continue;
    const std::u32string t = decode(p.label);
    const int row = row_of(cv, c.y, p.y);
    const int col = col_of(cv, c.x, p.x);
    const int n = static_cast<int>(t.size());
    // Beside the mark on its row, then on the rows above and below, right before left.
    for (const int dy : {0, -1, 1, -2, 2, -3, 3}) {
      const int right = dy == 0 ? col + 2 : col + 1;
      const int left = dy == 0 ? col - n - 1 : col - n;
      if (cv.put(right, row + dy, t, p.label_colour) || cv.put(left, row + dy, t, p.label_colour)) break;
    }
  }
  // Then the roofs' short labels at their right ends.
  for (const Series& s : c.series) {
    if (s.short_label.empty() || s.xy.empty() || !inside(s.xy.back().first, s.xy.back().second)) continue;
    const std::u32string t = decode(s.short_label);
    const int row = row_of(cv, c.y, s.xy.back().second);
    const int col = w - static_cast<int>(t.size());
    for (const int r : {row - 1, row + 1, row - 2, row + 2}) {
      if (cv.put(col, r, t, s.colour)) break;
    }
  }
  // Rows with the y axis and its labels.
  std::vector<std::string> row_label(static_cast<std::size_t>(h));
  std::vector<bool> row_tick(static_cast<std::size_t>(h), false);
  for (const double t : yt) {
    const int r = row_of(cv, c.y, t);
    if (r < 0 || r >= h) continue;
    row_tick[static_cast<std::size_t>(r)] = true;
    if (major_tick(c.y, t)) row_label[static_cast<std::size_t>(r)] = tick_label(c.y, t);
  }
  for (int r = 0; r < h; ++r) {
    const std::u32string lab = decode(row_label[static_cast<std::size_t>(r)]);
    Line l(static_cast<std::size_t>(margin - 1 - static_cast<int>(lab.size())), Cell{});
    append(l, row_label[static_cast<std::size_t>(r)]);
    l.push_back({row_tick[static_cast<std::size_t>(r)] ? U'\u2524' : U'\u2502', 0, -1, true});
    for (int col = 0; col < w; ++col) l.push_back(cv.cell(col, r));
    out.push_back(l);
  }
  // The x axis, its tick labels (none overlapping), and its title.
  Line axis(static_cast<std::size_t>(margin - 1), Cell{});
  axis.push_back({U'\u2514', 0, -1, true});
  for (int col = 0; col < w; ++col) axis.push_back({U'\u2500', 0, -1, true});
  Line labels(static_cast<std::size_t>(width), Cell{});
  int free_from = 0;
  for (const double t : ticks(c.x)) {
    if (!major_tick(c.x, t)) continue;
    const int col = margin + col_of(cv, c.x, t);
    if (col >= margin && col < width) axis[static_cast<std::size_t>(col)].ch = U'\u252C';
    const std::u32string lab = decode(tick_label(c.x, t));
    int start = std::clamp(col - static_cast<int>(lab.size()) / 2, 0, width - static_cast<int>(lab.size()));
    if (start < free_from) continue;
    for (std::size_t i = 0; i < lab.size(); ++i) labels[static_cast<std::size_t>(start) + i] = {lab[i], 0, -1, true};
    free_from = start + static_cast<int>(lab.size()) + 1;
  }
  out.push_back(axis);
  out.push_back(labels);
  const std::u32string xt = decode(c.x.title);
  Line title(static_cast<std::size_t>(std::max(0, width - static_cast<int>(xt.size()))), Cell{});
  append(title, c.x.title);
  out.push_back(title);
  legend_and_notes(out, c, width);
  return out;
}

std::vector<Line> bar_picture(const Chart& c, int width) {
  std::vector<Line> out;
  header(out, c, width);
  std::size_t label_w = 0;
  for (const Bar& b : c.bars) label_w = std::max(label_w, decode(b.label).size());
  label_w = std::min(label_w, static_cast<std::size_t>(width / 4));
  const int bar_w = width - static_cast<int>(label_w) - 2;  // a space after the label, the limit's mark
  double most = 0.0;
  for (const Bar& b : c.bars) {
    double sum = 0.0;
    for (const Segment& s : b.segments) sum += std::max(0.0, s.value);
    most = std::max({most, sum, b.limit});
  }
  const double per_cell = most > 0.0 ? static_cast<double>(bar_w) / most : 0.0;
  for (const Bar& b : c.bars) {
    std::u32string lab = decode(b.label).substr(0, label_w);
    Line l;
    for (const char32_t ch : lab) l.push_back({ch, 0, b.colour, true});
    l.resize(label_w + 1, Cell{});
    int end = 0;
    double sum = 0.0;
    for (const Segment& s : b.segments) {
      if (s.value <= 0.0) continue;
      sum += s.value;
      const int to = std::min(bar_w, std::max(end + 1, static_cast<int>(std::lround(sum * per_cell))));
      for (; end < to; ++end)
        l.push_back({kShadeGlyph.at(static_cast<std::size_t>(s.shade) % kShadeGlyph.size()), 0, 100 + s.shade, true});
    }
    // The limit: a bar that fits ends at it (the mark after the bar), one past it has the mark
    // inserted where the limit falls.
    const Cell mark{sum <= b.limit ? U'\u2502' : U'\u2503', 0, -1, true};
    const int lim = std::clamp(static_cast<int>(std::lround(b.limit * per_cell)), 0, end);
    l.insert(l.begin() + static_cast<std::ptrdiff_t>(label_w + 1) + (sum <= b.limit ? end : lim), mark);
    out.push_back(l);
    for (const std::string& n : wrap(b.note, static_cast<std::size_t>(width) - label_w - 1)) {
      Line nl(label_w + 1, Cell{});
      append(nl, n);
      out.push_back(nl);
    }
  }
  legend_and_notes(out, c, width);
  return out;
}

}  // namespace

std::string render_terminal(const Chart& c, const TermOptions& o) {
  const int width = std::max(o.columns, kMinColumns);
  const std::vector<Line> lines = c.bars.empty() ? xy_picture(c, width) : bar_picture(c, width);
  std::string out;
  for (const Line& l : lines) out += serialize(l, width, o.color);
  return out;
}

}  // namespace roofline::format::plot

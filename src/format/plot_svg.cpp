// A chart as a standalone SVG 1.1 document. Coordinates are written with one decimal, so the same
// chart gives the same bytes (the golden files in tests/golden/svg rely on it).
#include "format/plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace roofline::format::plot {
namespace {

constexpr std::array<std::string_view, 8> kColours = {"#1f77b4", "#d95f02", "#1b9e77", "#7570b3",
                                                      "#e7298a", "#66a61e", "#a6761d", "#444444"};
constexpr std::array<std::string_view, 6> kShades = {"#4c72b0", "#dd8452", "#9a9a9a", "#e4ebf2", "#55a868", "#8172b3"};
constexpr std::string_view kNeutral = "#555555";
constexpr double kWidth = 1000.0;
constexpr double kFont = 11.0;
constexpr double kCharWidth = 0.62;  // of the font size, for DejaVu Sans-like faces

std::string_view colour(int i) {
  if (i < 0) return kNeutral;
  return kColours.at(static_cast<std::size_t>(i) % kColours.size());
}

std::string_view shade(int i) { return kShades.at(static_cast<std::size_t>(std::clamp(i, 0, 5))); }

std::string esc(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        // Control characters are not allowed in XML 1.0 text.
        if (static_cast<unsigned char>(c) >= 0x20 || c == '\t') out += c;
    }
  }
  return out;
}

// Characters, not bytes: UTF-8 continuation bytes do not count.
double text_width(std::string_view s, double size) {
  double n = 0.0;
  for (const char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0U) != 0x80U) n += 1.0;
  }
  return n * size * kCharWidth;
}

std::string num(double v) {
  if (std::fabs(v) < 0.05) v = 0.0;  // no "-0.0"
  return fmt::format("{:.1f}", v);
}

struct Box {
  double x0, y0, x1, y1;
  [[nodiscard]] bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
};

struct Frame {
  double left, top, right, bottom;
  [[nodiscard]] double px(const Axis& a, double v) const { return left + position(a, v) * (right - left); }
  [[nodiscard]] double py(const Axis& a, double v) const { return bottom - position(a, v) * (bottom - top); }
};

class Svg {
 public:
  void add(const std::string& s) {
    out_ += s;
    out_ += '\n';
  }
  void text(double x, double y, std::string_view s, std::string_view anchor = "start", double size = kFont,
            std::string_view fill = "#222222", std::string_view extra = "") {
    add(fmt::format(R"(<text x="{}" y="{}" font-size="{}" fill="{}"{}{}>{}</text>)", num(x), num(y), num(size), fill,
                    anchor == "start" ? std::string() : fmt::format(R"( text-anchor="{}")", anchor), extra, esc(s)));
  }
  void mark(Mark m, double x, double y, std::string_view fill, bool hollow, double r = 4.5) {
    const std::string paint = hollow ? fmt::format(R"(fill="#ffffff" stroke="{}" stroke-width="1.5")", fill)
                                     : fmt::format(R"(fill="{}" stroke="#ffffff" stroke-width="0.8")", fill);
    switch (m) {
      case Mark::none:
        return;
      case Mark::circle:
        add(fmt::format(R"(<circle cx="{}" cy="{}" r="{}" {}/>)", num(x), num(y), num(r), paint));
        return;
      case Mark::square:
        add(fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" {}/>)", num(x - r), num(y - r), num(2 * r),
                        num(2 * r), paint));
        return;
      case Mark::diamond:
        add(fmt::format(R"(<polygon points="{},{} {},{} {},{} {},{}" {}/>)", num(x), num(y - r - 1), num(x + r + 1),
                        num(y), num(x), num(y + r + 1), num(x - r - 1), num(y), paint));
        return;
      case Mark::triangle:
        add(fmt::format(R"(<polygon points="{},{} {},{} {},{}" {}/>)", num(x), num(y - r - 1), num(x + r + 1),
                        num(y + r), num(x - r - 1), num(y + r), paint));
        return;
      case Mark::triangle_down:
        add(fmt::format(R"(<polygon points="{},{} {},{} {},{}" {}/>)", num(x), num(y + r + 1), num(x + r + 1),
                        num(y - r), num(x - r - 1), num(y - r), paint));
        return;
      case Mark::cross:
        add(fmt::format(R"(<path d="M{} {}L{} {}M{} {}L{} {}" stroke="{}" stroke-width="2" fill="none"/>)", num(x - r),
                        num(y - r), num(x + r), num(y + r), num(x - r), num(y + r), num(x + r), num(y - r), fill));
        return;
    }
  }
  [[nodiscard]] const std::string& str() const { return out_; }

 private:
  std::string out_;
};

// Notes wrapped at a width, on word boundaries.
std::vector<std::string> wrap(const std::string& s, std::size_t width) {
  std::vector<std::string> lines;
  std::string line;
  std::size_t at = 0;
  while (at < s.size()) {
    std::size_t end = s.find(' ', at);
    if (end == std::string::npos) end = s.size();
    const std::string word = s.substr(at, end - at);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      lines.push_back(line);
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    at = end + 1;
  }
  if (!line.empty()) lines.push_back(line);
  return lines;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const std::size_t nl = s.find('\n', at);
    out.push_back(s.substr(at, nl == std::string::npos ? std::string::npos : nl - at));
    if (nl == std::string::npos) break;
    at = nl + 1;
  }
  return out;
}

void header(Svg& svg, const Chart& c, double height) {
  svg.add(R"(<?xml version="1.0" encoding="UTF-8"?>)");
  const auto w = static_cast<long>(std::lround(kWidth));
  const auto h = static_cast<long>(std::lround(height));
  svg.add(fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{}" height="{}" )"
                      R"(viewBox="0 0 {} {}" font-family="DejaVu Sans, Verdana, Arial, sans-serif">)",
                      w, h, w, h));
  svg.add("<title>" + esc(c.title) + "</title>");
  svg.add(R"(<rect x="0" y="0" width="100%" height="100%" fill="#ffffff"/>)");
  svg.text(20, 30, c.title, "start", 17, "#111111", R"( font-weight="bold")");
  if (!c.subtitle.empty()) svg.text(20, 50, c.subtitle, "start", 12, "#444444");
}

// The legend from (x, y) down; returns the y below it.
double legend(Svg& svg, const std::vector<LegendItem>& items, double x, double y) {
  for (const LegendItem& it : items) {
    const std::vector<std::string> lines = split_lines(it.text);
    const std::string_view col = colour(it.colour);
    if (it.shade >= 0) {
      svg.add(
          fmt::format(R"(<rect x="{}" y="{}" width="22" height="10" fill="{}" stroke="#666666" stroke-width="0.5"/>)",
                      num(x), num(y - 9), shade(it.shade)));
    }
    if (it.line) {
      svg.add(fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="2"{}/>)", num(x),
                          num(y - 4), num(x + 22), num(y - 4), col, it.dashed ? R"( stroke-dasharray="5 3")" : ""));
    }
    svg.mark(it.mark, x + 11, y - 4, col, it.hollow, 4.0);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      svg.text(x + 30, y + static_cast<double>(i) * 13.0, lines[i], "start", i == 0 ? kFont : 10.0,
               i == 0 ? "#222222" : "#555555");
    }
    y += 13.0 * static_cast<double>(lines.size()) + 6.0;
  }
  return y;
}

// The boxes placed so far, filed by the grid cells they cover: a label is tested against its
// neighbours only, so n labels and marks cost about n, not n^2 (N6).
class Taken {
 public:
  void add(const Box& b) {
    const auto at = static_cast<std::uint32_t>(boxes_.size());
    boxes_.push_back(b);
    seen_.push_back(0);
    for_cells(b, [&](std::vector<std::uint32_t>& cell) { cell.push_back(at); });
  }
  /// The area b shares with the boxes placed, summed in the order they were placed.
  [[nodiscard]] double overlap(const Box& b) {
    ++query_;
    hits_.clear();
    for_cells(b, [&](std::vector<std::uint32_t>& cell) {
      for (const std::uint32_t i : cell) {
        if (seen_[i] == query_ || !boxes_[i].overlaps(b)) continue;
        seen_[i] = query_;
        hits_.push_back(i);
      }
    });
    std::sort(hits_.begin(), hits_.end());
    double area = 0.0;
    for (const std::uint32_t i : hits_) {
      const Box& t = boxes_[i];
      area += (std::min(b.x1, t.x1) - std::max(b.x0, t.x0)) * (std::min(b.y1, t.y1) - std::max(b.y0, t.y0));
    }
    return area;
  }

 private:
  // 24-pixel cells over a 1,200 x 1,200 canvas; a box past an edge is filed in the edge's cells.
  static constexpr double kCell = 24.0;
  static constexpr int kCells = 50;
  static int cell_of(double v) {
    if (!(v > 0.0)) return 0;
    return static_cast<int>(std::min(v / kCell, static_cast<double>(kCells - 1)));
  }
  template <typename F>
  void for_cells(const Box& b, F f) {
    for (int cy = cell_of(b.y0); cy <= cell_of(b.y1); ++cy) {
      for (int cx = cell_of(b.x0); cx <= cell_of(b.x1); ++cx) f(cells_[static_cast<std::size_t>(cy * kCells + cx)]);
    }
  }
  std::vector<Box> boxes_;
  std::vector<std::vector<std::uint32_t>> cells_ = std::vector<std::vector<std::uint32_t>>(kCells * kCells);
  std::vector<std::uint32_t> seen_;
  std::vector<std::uint32_t> hits_;
  std::uint32_t query_ = 0;
};

// Places a label near (x, y) where it overlaps nothing placed and stays in the frame; when every
// candidate collides, the one in the frame that overlaps least (the first, if none is in it).
Box place(Taken& taken, const Frame& f, double x, double y, double w, double h,
          const std::vector<std::pair<double, double>>& offsets) {
  std::optional<Box> best;
  double best_overlap = 0.0;
  for (const auto& [dx, dy] : offsets) {
    const double x0 = dx >= 0 ? x + dx : x + dx - w;
    const Box b{x0, y + dy - h - 1, x0 + w, y + dy + 1};
    if (!best) best = b;
    if (b.x0 < f.left + 2 || b.x1 > f.right - 2 || b.y0 < f.top + 2 || b.y1 > f.bottom - 2) continue;
    const double overlap = taken.overlap(b);
    if (overlap == 0.0) return b;
    if (best_overlap == 0.0 || overlap < best_overlap) {
      best = b;
      best_overlap = overlap;
    }
  }
  return *best;
}

void axes(Svg& svg, const Chart& c, const Frame& f) {
  // Grid and ticks.
  for (const double t : ticks(c.x)) {
    const double x = f.px(c.x, t);
    const bool major = major_tick(c.x, t);
    svg.add(fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="1"/>)", num(x), num(f.top),
                        num(x), num(f.bottom), major ? "#d4d4d4" : "#eeeeee"));
    svg.text(x, f.bottom + 17, tick_label(c.x, t), "middle", major ? kFont : 9.5, major ? "#222222" : "#777777");
  }
  if (c.bars.empty()) {
    for (const double t : ticks(c.y)) {
      const double y = f.py(c.y, t);
      const bool major = major_tick(c.y, t);
      svg.add(fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="{}" stroke-width="1"/>)", num(f.left),
                          num(y), num(f.right), num(y), major ? "#d4d4d4" : "#eeeeee"));
      svg.text(f.left - 6, y + 4, tick_label(c.y, t), "end", major ? kFont : 9.5, major ? "#222222" : "#777777");
    }
    const double mid = (f.top + f.bottom) / 2;
    svg.text(22, mid, c.y.title, "middle", 12, "#222222",
             fmt::format(R"svg( transform="rotate(-90 22 {})")svg", num(mid)));
  }
  svg.text((f.left + f.right) / 2, f.bottom + 38, c.x.title, "middle", 12);
  svg.add(fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#333333" stroke-width="1"/>)",
                      num(f.left), num(f.top), num(f.right - f.left), num(f.bottom - f.top)));
}

double notes(Svg& svg, const Chart& c, double y) {
  for (const std::string& n : c.notes) {
    for (const std::string& line : wrap(n, 150)) {
      svg.text(20, y, line, "start", 10.5, "#444444");
      y += 15;
    }
  }
  return y;
}

std::size_t note_lines(const Chart& c) {
  std::size_t n = 0;
  for (const std::string& s : c.notes) n += wrap(s, 150).size();
  return n;
}

// A mark's shape, colour, fill and position to the half pixel (the frame is within 2,048 pixels).
std::uint64_t mark_key(const Point& p, double x, double y) {
  const auto half = [](double v) { return static_cast<std::uint64_t>(std::lround(std::clamp(v, 0.0, 2047.0) * 2.0)); };
  return half(x) | half(y) << 12U | static_cast<std::uint64_t>(p.mark) << 24U |
         static_cast<std::uint64_t>(p.hollow) << 32U |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(p.colour)) << 33U;
}

std::string xy_chart(const Chart& c) {
  const double height = 620.0 + 15.0 * static_cast<double>(note_lines(c));
  const Frame f{80.0, 70.0, 715.0, 540.0};
  Svg svg;
  header(svg, c, height);
  axes(svg, c, f);
  svg.add(fmt::format(R"(<clipPath id="plot-area"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath>)",
                      num(f.left), num(f.top), num(f.right - f.left), num(f.bottom - f.top)));
  svg.add(R"svg(<g clip-path="url(#plot-area)">)svg");
  for (const Series& s : c.series) {
    std::string pts;
    for (const auto& [x, y] : s.xy) pts += (pts.empty() ? "" : " ") + num(f.px(c.x, x)) + "," + num(f.py(c.y, y));
    svg.add(fmt::format(R"(<polyline points="{}" fill="none" stroke="{}" stroke-width="{}"{}{}/>)", pts,
                        colour(s.colour), s.thin ? "1.2" : "2.2", s.dashed ? R"( stroke-dasharray="6 4")" : "",
                        s.thin ? R"( stroke-opacity="0.75")" : ""));
  }
  svg.add("</g>");
  // Marks, then labels placed around them: the roofs' labels first, then the points'.
  Taken taken;
  for (const Series& s : c.series) {
    for (const auto& [x, y] : s.xy) {
      if (s.mark == Mark::none) continue;
      svg.mark(s.mark, f.px(c.x, x), f.py(c.y, y), colour(s.colour), s.hollow);
    }
  }
  std::unordered_set<std::uint64_t> drawn;
  for (const Point& p : c.points) {
    const double x = f.px(c.x, p.x);
    const double y = f.py(c.y, p.y);
    if (x < f.left - 1 || x > f.right + 1 || y < f.top - 1 || y > f.bottom + 1) continue;
    // A mark drawn over the same mark at the same half pixel adds nothing to see: drawn once, so
    // a sweep of 10^6 points along a curve writes its few thousand distinct marks (N6).
    if (!drawn.insert(mark_key(p, x, y)).second) continue;
    svg.mark(p.mark, x, y, colour(p.colour), p.hollow);
    taken.add({x - 5, y - 5, x + 5, y + 5});
  }
  // The roofs' labels at their right ends first (moved up, down or left along the roof until they
  // overlap nothing), then the points' labels around their marks, which have more places to go.
  for (const Series& s : c.series) {
    if (s.label.empty() || s.xy.empty()) continue;
    const double w = text_width(s.label, 10.0);
    const double y = f.py(c.y, s.xy.back().second);
    std::vector<std::pair<double, double>> offsets;
    for (const double dx : {-1.0, -1.0 - (w + 12), -1.0 - 2 * (w + 12)}) {
      if (f.right - 3 + dx - w < f.px(c.x, s.xy.front().first)) continue;  // stays on its roof
      for (const double dy : {-3.0, 13.0, -15.0, 25.0}) offsets.emplace_back(dx, dy);
    }
    if (offsets.empty()) offsets.emplace_back(-1.0, -3.0);
    const Box b = place(taken, f, f.right - 3, y, w, 10.0, offsets);
    taken.add(b);
    svg.text(b.x1, b.y1 - 2, s.label, "end", 10.0, colour(s.colour));
  }
  // Right of the mark then left, above then below, farther out as the nearer places fill.
  const std::vector<std::pair<double, double>> around = {{7, -5},   {7, 14},  {-7, -5}, {-7, 14}, {7, -17},  {7, 26},
                                                         {-7, -17}, {-7, 26}, {7, -29}, {7, 38},  {-7, -29}, {-7, 38}};
  for (const Point& p : c.points) {
    if (p.label.empty()) continue;
    const double x = f.px(c.x, p.x);
    const double y = f.py(c.y, p.y);
    if (x < f.left - 1 || x > f.right + 1 || y < f.top - 1 || y > f.bottom + 1) continue;
    const double w = text_width(p.label, kFont);
    const Box b = place(taken, f, x, y, w, kFont, around);
    taken.add(b);
    svg.text(b.x0, b.y1 - 3, p.label, "start", kFont, p.label_colour < 0 ? "#222222" : colour(p.label_colour));
  }
  legend(svg, c.legend, 735.0, 82.0);
  notes(svg, c, 600.0);
  svg.add("</svg>");
  return svg.str();
}

std::string bar_chart(const Chart& c) {
  constexpr double kBar = 26.0;
  constexpr double kRow = 62.0;
  const double top = 96.0;
  const double bottom = top + kRow * static_cast<double>(c.bars.size());
  const double height = bottom + 70.0 + 15.0 * static_cast<double>(note_lines(c));
  const Frame f{170.0, top - 12.0, 960.0, bottom};
  Svg svg;
  header(svg, c, height);
  // The legend in one row under the subtitle.
  double lx = 20.0;
  for (const LegendItem& it : c.legend) {
    legend(svg, {it}, lx, 74.0);
    lx += 40.0 + text_width(it.text, kFont);
  }
  axes(svg, c, f);
  for (std::size_t i = 0; i < c.bars.size(); ++i) {
    const Bar& b = c.bars[i];
    const double y = top + kRow * static_cast<double>(i);
    svg.text(f.left - 8, y + kBar / 2 + 4, b.label, "end", 12, colour(b.colour), R"( font-weight="bold")");
    double at = 0.0;
    for (const Segment& s : b.segments) {
      if (s.value <= 0.0) continue;
      const double x0 = f.px(c.x, at);
      const double x1 = f.px(c.x, at + s.value);
      svg.add(
          fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="{}" stroke="#ffffff" stroke-width="0.8"/>)",
                      num(x0), num(y), num(x1 - x0), num(kBar), shade(s.shade)));
      if (x1 - x0 > text_width(s.name, 10.0) + 8) {
        svg.text((x0 + x1) / 2, y + kBar / 2 + 4, s.name, "middle", 10.0, s.shade == 3 ? "#333333" : "#ffffff");
      }
      at += s.value;
    }
    const double lim = f.px(c.x, b.limit);
    svg.add(fmt::format(R"(<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#111111" stroke-width="2"/>)", num(lim),
                        num(y - 5), num(lim), num(y + kBar + 5)));
    svg.text(f.left, y + kBar + 17, b.note, "start", 10.5, "#444444");
  }
  notes(svg, c, bottom + 62.0);
  svg.add("</svg>");
  return svg.str();
}

}  // namespace

std::string render_svg(const Chart& c) { return c.bars.empty() ? xy_chart(c) : bar_chart(c); }

}  // namespace roofline::format::plot

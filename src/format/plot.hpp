// Pictures: a small chart model (axes, lines, points, bars, legend) and its two renderings, a
// standalone SVG 1.1 document and a terminal picture (Unicode braille and block characters, ANSI
// colour only when asked). The charts are built from analysis results (format/plot_charts.hpp);
// nothing here computes a quantity, it only places what it is given. No I/O.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace roofline::format::plot {

enum class Scale { log, linear };

/// An axis in data units. Log axes are whole decades; tick labels show value / label_scale.
struct Axis {
  std::string title;  ///< with its unit: "arithmetic intensity (FLOP/B)"
  Scale scale = Scale::log;
  double min = 1.0;
  double max = 10.0;
  double label_scale = 1.0;  ///< 1e12: the ticks of a FLOP/s axis read in TFLOP/s
};

/// A log axis over whole decades that holds [lo, hi] (both > 0).
Axis log_axis(std::string title, double lo, double hi, double label_scale = 1.0);
/// A linear axis from 0 to a round value at or above hi.
Axis linear_axis(std::string title, double hi, double label_scale = 1.0);

/// The values a tick is drawn at: decades (with 2 and 5 when the axis spans two decades or less)
/// on a log axis, 1-2-5 steps on a linear one.
std::vector<double> ticks(const Axis& a);
/// Whether a tick is major (a decade, or every tick of a linear axis): a label and a darker line.
bool major_tick(const Axis& a, double v);
/// A tick's label: value / label_scale as 0.01, 0.5, 1, 20, 100, 1k, 10k, 1M.
std::string tick_label(const Axis& a, double v);
/// Where v sits along the axis: 0 at min, 1 at max (outside [0, 1] when off the axis).
double position(const Axis& a, double v);

enum class Mark { none, circle, square, diamond, triangle, triangle_down, cross };

/// A polyline in data coordinates.
struct Series {
  std::vector<std::pair<double, double>> xy;
  int colour = 0;  ///< palette index (one per accelerator)
  bool dashed = false;
  bool thin = false;
  Mark mark = Mark::none;   ///< drawn at each vertex
  bool hollow = false;      ///< hollow marks
  std::string label;        ///< written at the line's right end (SVG)
  std::string short_label;  ///< the same in the terminal
};

/// One marked point in data coordinates.
struct Point {
  double x = 0.0;
  double y = 0.0;
  int colour = 0;
  Mark mark = Mark::circle;
  bool hollow = false;
  std::string label;      ///< empty: unlabelled
  int label_colour = -1;  ///< -1: the text colour; else the palette's (a label that belongs to one accelerator)
};

/// One term of a stacked bar.
struct Segment {
  std::string name;
  double value = 0.0;  ///< data units of the bar axis
  int shade = 0;       ///< segment palette index: 0 weights, 1 KV, 2 reserve, 3 unused
};

/// A horizontal stacked bar against a limit (a capacity).
struct Bar {
  std::string label;
  std::vector<Segment> segments;
  double limit = 0.0;
  int colour = 0;    ///< the accelerator's colour, for its label
  std::string note;  ///< the figures in words, under the bar
};

struct LegendItem {
  std::string text;
  int colour = -1;  ///< accelerator palette index; -1: neutral grey
  Mark mark = Mark::none;
  bool line = false;
  bool dashed = false;
  bool hollow = false;
  int shade = -1;  ///< a bar segment's swatch
};

/// A chart: an x-y plot of series and points, or (with bars) a bar chart along x.
struct Chart {
  std::string title;
  std::string subtitle;
  Axis x;
  Axis y;
  std::vector<Series> series;
  std::vector<Point> points;
  std::vector<Bar> bars;
  std::vector<LegendItem> legend;
  std::vector<std::string> notes;
};

/// A standalone SVG 1.1 document (xmlns, version, width, height, viewBox), deterministic to the
/// byte for a given chart.
std::string render_svg(const Chart& c);

struct TermOptions {
  int columns = 80;    ///< the picture is at most this wide (at least 40 is used)
  bool color = false;  ///< ANSI colours
};

/// The chart in the terminal: braille dots for lines, block characters for bars, every line at
/// most `columns` characters wide; no escape sequences unless `color`.
std::string render_terminal(const Chart& c, const TermOptions& o);

}  // namespace roofline::format::plot

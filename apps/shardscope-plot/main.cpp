// shardscope-plot (run by `shardscope plot`): draws a sweep's results as a line or grouped-bar chart in SVG
// or PNG, headless (Qt's offscreen platform), with shardscope's exit codes and error messages.
#include <CLI/CLI.hpp>
#include <QByteArray>
#include <QGuiApplication>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/shardscope-plot/plot_data.hpp"
#include "apps/shardscope-plot/render.hpp"
#include "apps/shardscope/exit_status.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/output_file.hpp"
#include "apps/shardscope/plot_exec.hpp"
#include "apps/shardscope/result_table.hpp"
#include "apps/shardscope/standard_streams.hpp"
#include "planner/core/error.hpp"

namespace {

namespace cli = shardscope::cli;

// Qt's own notes (such as "XDG_RUNTIME_DIR not set" under the offscreen platform) are not the command's
// messages: only its critical and fatal ones reach standard error.
void quiet_qt_messages(QtMsgType type, const QMessageLogContext&, const QString& message) {
  if (type == QtCriticalMsg || type == QtFatalMsg) std::cerr << "qt: " << message.toStdString() << "\n";
}
namespace plot = shardscope::plot;

struct Options {
  std::vector<std::string> inputs;
  plot::PlotRequest request;
  std::string kind = "auto";
  std::string out;
  int width_pixels = 800;
  int height_pixels = 480;
};

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

void add_options(CLI::App& app, Options& o) {
  app.add_option("results", o.inputs,
                 "Results: JSON lines from `shardscope sweep --out` (merged as `merge` does) "
                 "or one CSV from `shardscope merge --csv`")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--x", o.request.x, "The column on the x axis, e.g. cluster.nodes or model")
      ->required()
      ->check(cli::non_empty("a column name"));
  app.add_option("--y", o.request.y,
                 "A metric every strategy reports (samples_per_second: one series per strategy) or a column "
                 "(osdp.peak_memory_bytes)")
      ->required()
      ->check(cli::non_empty("a metric or column name"));
  app.add_option("--series", o.request.series, "A column whose values split the rows into series")
      ->check(cli::non_empty("a column name"));
  app.add_option("--strategies", o.request.strategies,
                 "With a metric --y: only these strategies, in this order")
      ->delimiter(',')
      ->allow_extra_args(false);
  app.add_option("--where", o.request.where, "Plot only rows with COLUMN=VALUE (repeatable)")
      ->allow_extra_args(false);
  app.add_option("--kind", o.kind, "auto (lines over numeric x, else bars), line or bar")
      ->check(CLI::IsMember({"auto", "line", "bar"}));
  app.add_option("--out", o.out, "Write the chart here (.svg or .png; default: SVG on standard output)")
      ->check(cli::non_empty("a file path"));
  app.add_option("--title", o.request.title, "The chart's title (default: GRID: Y by X)");
  app.add_option("--width", o.width_pixels, "Image width in pixels")->check(CLI::Range(200, 8000));
  app.add_option("--height", o.height_pixels, "Image height in pixels")->check(CLI::Range(150, 8000));
}

// Runs the command; throws what it throws.
void run(const Options& o, char** argv) {
  plot::ImageFormat format = plot::ImageFormat::svg;
  if (!o.out.empty()) {
    if (ends_with(o.out, ".png")) {
      format = plot::ImageFormat::png;
    } else if (!ends_with(o.out, ".svg")) {
      throw shardscope::UsageError("--out",
                                   "expected a file name ending in .svg or .png, got '" + o.out + "'");
    }
  }
  const cli::OutputFile out_file = o.out.empty() ? cli::OutputFile() : cli::OutputFile("--out", o.out);
  plot::PlotRequest request = o.request;
  request.kind = o.kind == "line"  ? plot::ChartKind::line
                 : o.kind == "bar" ? plot::ChartKind::bar
                                   : plot::ChartKind::automatic;
  const cli::ResultTable table = cli::read_result_table(o.inputs, std::cerr);
  const plot::PlotData data = plot::plot_data(table, request);

  // Fonts and painting need a QGuiApplication; the offscreen platform needs no display.
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  qInstallMessageHandler(quiet_qt_messages);
  int qt_argc = 1;
  QGuiApplication application(qt_argc, argv);
  const QByteArray bytes = plot::render_plot(data, format, QSize(o.width_pixels, o.height_pixels));
  if (bytes.isEmpty()) throw cli::OutputError("the chart could not be drawn (Qt's painter failed)");
  const std::string image(bytes.constData(), static_cast<std::size_t>(bytes.size()));
  if (!out_file.requested()) {
    cli::write_standard_output(image);
    return;
  }
  out_file.write(image);
  std::size_t values = 0;
  for (const auto& series : data.values) {
    for (double v : series) values += v == v ? 1 : 0;
  }
  std::cout << "Plotted " << data.series.size() << " series, " << values << " values ("
            << (data.line ? "lines" : "bars") << "): " << o.out << "\n";
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{cli::kPlotDescription, "shardscope plot"};
  app.footer(cli::exit_status_help());
  Options o;
  add_options(app, o);
  if (!cli::guard_standard_descriptors()) {  // as `shardscope` refuses it: before any work, exit 2
    std::cerr << cli::kStandardOutputClosed;
    return cli::to_int(cli::ExitStatus::bad_input);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) {
      app.exit(e, std::cout, std::cerr);
      return 0;
    }
    std::ostringstream err;
    app.exit(e, std::cout, err);
    std::cerr << err.str();
    return cli::to_int(cli::ExitStatus::bad_input);
  }
  try {
    run(o, argv);
  } catch (const std::exception& e) {
    std::cerr << "error: " << cli::terminal_text(cli::failure_message(e)) << "\n";
    return cli::to_int(cli::exit_status_for(e));
  }
  return 0;
}

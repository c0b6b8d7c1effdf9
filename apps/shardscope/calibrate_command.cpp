// `shardscope calibrate [MEASUREMENTS...] [--nccl-tests LOG...] --cluster C [--nodes N] --out
// calibration.yaml
// [--report fit.json] [--min-r2 R] [--product-shapes] [--holdout]` (or `--published FILE... [--runtime
// NAME]`, calibrate_published.hpp; or `--kernels FILE --cluster C [--micro-batch N] [--attention B]`: the
// kernel efficiencies validate/torch/kernels.py measured): least-squares fit of calibration.yaml to the
// harness's measurements (validate/fit), with a table of every fitted quantity's residuals and R^2 and, with
// --holdout, the compute fit's errors on products it did not see; a fit the points cannot support exits 2
// naming the quantity and points.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/shardscope/calibrate_published.hpp"
#include "apps/shardscope/commands.hpp"
#include "apps/shardscope/option_checks.hpp"
#include "apps/shardscope/output_file.hpp"
#include "planner/core/cluster.hpp"
#include "planner/core/error.hpp"
#include "planner/core/names.hpp"
#include "planner/core/runtime_profile.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/cluster_presets.hpp"
#include "validate/fit/calibration_fit.hpp"
#include "validate/fit/calibration_writer.hpp"
#include "validate/fit/fit_report.hpp"
#include "validate/fit/kernel_bench.hpp"
#include "validate/fit/nccl_tests_log.hpp"
#include "validate/fit/published_fit.hpp"
#include "validate/fit/torch_trace.hpp"

namespace shardscope::cli {

namespace {

struct Options {
  std::vector<std::string> measurements, nccl_tests, torch_traces;
  int nodes = 0;
  std::string cluster, out, report;
  double min_r_squared = fit::FitOptions{}.min_r_squared;
  double max_alpha_rms = fit::FitOptions{}.max_alpha_rms;
  bool product_shapes = false, holdout = false;
  std::vector<std::string> published;  // --published: fit a runtime profile instead
  std::string runtime;
  std::string free;     // --free with --published: kernels (default) or peak
  std::string kernels;  // --kernels: kernels.py's file as runtime fits
  int micro_batch = 0;
  std::string attention;  // empty: flash
};

// One trace's kernels by kind, and what became samples.
void print_trace_summary(const std::string& path, const fit::TraceSummary& s,
                         const shardscope::Measurements& m, std::ostream& out) {
  char line[512];
  const double share = s.kernel_seconds > 0 ? 100 * s.product_seconds / s.kernel_seconds : 0;
  std::snprintf(
      line, sizeof line,
      "%s: %zu kernels, %.3f ms; products %zu (%.3f ms, %.1f %%: %zu shapes alone, %zu kernels beside a "
      "collective), NCCL %zu (%.3f ms: %zu collectives)\n",
      path.c_str(), s.kernels, 1e3 * s.kernel_seconds, s.product_kernels, 1e3 * s.product_seconds, share,
      m.gemms.size(), s.overlapped_product_kernels, s.nccl_kernels, 1e3 * s.nccl_seconds,
      m.collectives.size());
  out << line;
  for (const fit::TraceAttention& a : s.attention) {
    std::string shape;
    for (long d : a.query) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    std::snprintf(line, sizeof line,
                  "  attention %s (query %s): %zu kernels, %.3f ms (reported, not fitted)\n", a.op.c_str(),
                  shape.c_str(), a.kernels, 1e3 * a.seconds);
    out << line;
  }
}

// A fitted link class faster than the cluster's link: its collectives did not run as rings (NVLS reduces
// in the switch, SHARP in the network), so the rate is not a link's; NCCL's model prices those itself.
void warn_faster_than_links(const fit::FitResult& result, const Cluster& cluster, std::ostream& out) {
  for (LinkClass lc : values<LinkClass>()) {
    const auto& link = result.calibration.links[static_cast<std::size_t>(lc)];
    if (!link) continue;
    const double nominal = link_properties(cluster, lc).bytes_per_second;
    if (!(nominal > 0) || link->bytes_per_second <= 1.1 * nominal) continue;
    char line[400];
    std::snprintf(
        line, sizeof line,
        "\nwarning: links.%s.bandwidth %.4g GB/s is %.2f x the cluster's %.4g GB/s: these collectives did "
        "not run as rings (NVLS or SHARP reduce in a switch); fit link rates on NCCL_ALGO=Ring runs\n",
        to_string(lc), link->bytes_per_second / 1e9, link->bytes_per_second / nominal, nominal / 1e9);
    out << line;
  }
}

// "Held out: ..." lines: the compute fit made on every other product by size, priced on the rest.
void print_holdout(const fit::HoldoutScore& s, std::ostream& out) {
  if (s.errors.empty()) {
    out << "\nHeld out: too few products to hold any out\n";
    return;
  }
  char line[256];
  std::snprintf(line, sizeof line,
                "\nHeld out: fitted on %zu products, priced %zu others: mean |error| %.1f %%, time-weighted "
                "%.1f %%, rms %.1f %%, largest %.1f %%\n",
                s.fitted_on, s.errors.size(), 100 * s.mean_absolute_relative, 100 * s.time_weighted_relative,
                100 * s.residuals.rms_relative, 100 * s.residuals.max_relative);
  out << line;
}

std::string header(const fit::FitResult& result) {
  std::string h = "Fitted by `shardscope calibrate` on cluster " + result.cluster + " from:";
  for (const std::string& f : result.inputs) h += "\n  " + f;
  h += "\nResiduals and R^2 of every quantity: the command's table (or --report JSON).";
  return h;
}

// A device's model, without what a harness adds in parentheses (memory, clocks, bus; "one MPI rank"): the
// measurements file says "NVIDIA H100 80GB HBM3 (81079 MiB, SM clock 1980 MHz, ...)", nccl-tests the name.
std::string device_model(const std::string& name) { return name.substr(0, name.find(" (")); }

// A calibration describes one machine: files measured on two kinds of device, or a CPU back end's beside a
// GPU's, are refused (InputError on the later file, naming the earlier one) instead of fitted into one.
void refuse_mixed_machines(const std::vector<shardscope::Measurements>& files) {
  const shardscope::Measurements* named = nullptr;  // the first file that names its device
  const shardscope::Measurements* cpu = nullptr;
  const shardscope::Measurements* gpu = nullptr;
  for (const shardscope::Measurements& m : files) {
    if (!m.machine.device_name.empty()) {
      if (named != nullptr &&
          device_model(named->machine.device_name) != device_model(m.machine.device_name)) {
        throw InputError(m.file, 0, "machine.device_name",
                         "measured on " + device_model(m.machine.device_name) + ", but " + named->file +
                             " on " + device_model(named->machine.device_name) +
                             ": a calibration describes one machine; calibrate each into its own file");
      }
      if (named == nullptr) named = &m;
    }
    const bool is_cpu = m.machine.backend == "cpu-mpi";
    const shardscope::Measurements*& first_of_kind = is_cpu ? cpu : gpu;
    if (first_of_kind == nullptr) first_of_kind = &m;
    const shardscope::Measurements* other_kind = is_cpu ? gpu : cpu;
    if (other_kind != nullptr) {
      throw InputError(m.file, 0, "machine.backend",
                       "the " + m.machine.backend + " back end measured this, but " + other_kind->file +
                           " is " + other_kind->machine.backend +
                           ": CPUs and GPUs are calibrated separately, one machine per file");
    }
  }
}

// The fitted calibration as calibrate writes it, read back: a value the format refuses is reported as the
// fit's, not at a line of a file that is never written.
void check_reads_back(const std::string& yaml, const std::string& out_path) {
  try {
    parse_calibration_string(yaml, out_path);
  } catch (const InputError& e) {
    throw InputError("calibrate", 0, e.field(),
                     "the fit gives a value the calibration format refuses (" + e.message() +
                         "), so nothing was written to " + out_path +
                         "; check the measurements of that quantity");
  }
}

// A number in its shortest form ("1", "0.9", "100").
std::string shortest(double value) {
  std::ostringstream text;
  text << value;
  return text.str();
}

void add_calibrate_options(CLI::App& cmd, Options& o) {
  cmd.add_option("measurements", o.measurements, "Measurements JSON files (shardscope-validate)")
      ->check(non_empty("a file path"));
  cmd.add_option(
         "--nccl-tests", o.nccl_tests,
         "nccl-tests text logs (all_reduce_perf, all_gather_perf, reduce_scatter_perf): their rows fit "
         "the link classes their ranks span")
      ->check(non_empty("a file path"));
  cmd.add_option(
         "--torch-trace", o.torch_traces,
         "PyTorch profiler (Kineto) Chrome traces, .json or .json.gz, recorded with record_shapes=True: "
         "their matrix-product kernels fit the compute rate by shape, products beside NCCL kernels the "
         "overlap slowdown")
      ->check(non_empty("a file path"));
  cmd.add_option("--nodes", o.nodes, "The cluster's node count (cluster.nodes), as the measured machine had")
      ->check(CLI::Range(1, 100000));
  cmd.add_option("--cluster", o.cluster,
                 "Cluster preset name or YAML file of the machine measured (required unless --published)")
      ->check(non_empty("a cluster preset or file"));
  cmd.add_option("--published", o.published,
                 "Published-measurements files (validate/published/): fit their runtime profile's host cost "
                 "and the GPU's kernel efficiencies on their fit rows, score the held-out rows")
      ->check(non_empty("a file path"));
  cmd.add_option("--runtime", o.runtime,
                 "With --published: the runtime profile to fit instead of the files' runtime_profile")
      ->check(CLI::IsMember(names<RuntimeName>()));
  cmd.add_option(
         "--free", o.free,
         "With --published: what the fit may change: kernels (the GPU's five kernel efficiencies and "
         "the host time; the default) or peak (one factor on the GPU's peak: a card whose clock under "
         "its power limit is not known)")
      ->check(CLI::IsMember(names<fit::PublishedFreeParameters>()));
  cmd.add_option(
         "--kernels", o.kernels,
         "A kernel measurement of validate/torch/kernels.py: its products' and attention's efficiencies "
         "on --cluster's GPU as calibration.yaml's runtime fits (the kernel pricing of fsdp2, fsdp1, "
         "deepspeed)")
      ->check(non_empty("a file path"));
  cmd.add_option("--micro-batch", o.micro_batch,
                 "With --kernels: the micro-batch whose measurements to take (default: the file's largest)")
      ->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--attention", o.attention,
                 "With --kernels: the attention back end the framework runs (default flash)")
      ->check(CLI::IsMember({"flash", "cudnn", "efficient"}));
  cmd.add_option("--out", o.out, "Write the fitted calibration.yaml here")
      ->required()
      ->check(non_empty("a file path"));
  cmd.add_option("--report", o.report, "Also write every fitted quantity's residuals and R^2 as JSON")
      ->check(non_empty("a file path"));
  cmd.add_option("--min-r2", o.min_r_squared,
                 "Refuse a fit whose R^2 is below this (default " +
                     std::to_string(o.min_r_squared).substr(0, 4) + ")")
      ->check(CLI::Range(0.0, 1.0));
  cmd.add_option("--max-alpha-rms", o.max_alpha_rms,
                 "Accept alpha's line below the R^2 threshold when its RMS relative error is at most this "
                 "(default " +
                     shortest(o.max_alpha_rms) + ", i.e. " + shortest(100 * o.max_alpha_rms) +
                     " %; 0 judges alpha by R^2 alone)")
      ->check(CLI::Range(0.0, 10.0));
  cmd.add_flag(
      "--product-shapes", o.product_shapes,
      "Price each matrix product by its shape (size, operand bytes, alignment) and element-wise bytes "
      "at the measured bandwidth, instead of one rate per kind and size (GPU measurements)");
  cmd.add_flag(
      "--holdout", o.holdout,
      "Also fit the compute model on every other product (by size) and report its errors on the rest");
}

// The measured files (JSON, nccl-tests logs, traces; a trace's summary printed to `out`), of one machine.
std::vector<shardscope::Measurements> load_measured(const Options& o, const Cluster& cluster,
                                                    std::ostream& out) {
  std::vector<shardscope::Measurements> files;
  for (const std::string& path : o.measurements) files.push_back(shardscope::load_measurements_file(path));
  for (const std::string& path : o.nccl_tests) files.push_back(fit::load_nccl_tests_log(path));
  for (const std::string& path : o.torch_traces) {
    fit::TraceSummary summary;
    shardscope::Measurements trace = fit::load_torch_trace(path, &summary);
    trace.machine.ranks = cluster.gpus();  // one rank's trace of a run on the cluster
    trace.machine.ranks_per_node = cluster.gpus_per_node;
    print_trace_summary(path, summary, trace, out);
    files.push_back(std::move(trace));
  }
  refuse_mixed_machines(files);
  return files;
}

// --published fits from published rows alone: the machine's measurements and options do not apply.
void run_published(const Options& o, std::ostream& out) {
  const bool measured = !o.measurements.empty() || !o.nccl_tests.empty() || !o.torch_traces.empty();
  if (measured || !o.cluster.empty() || o.nodes > 0 || o.product_shapes || o.holdout) {
    throw UsageError("--published",
                     "fits from published rows alone; it takes no measurements, --nccl-tests, "
                     "--torch-trace, --cluster, --nodes, --product-shapes or --holdout");
  }
  run_calibrate_published({o.published, o.runtime, o.free, o.out, o.report}, out);
}

// --kernels: kernels.py's measurement of one GPU as runtime fits, against --cluster's peak.
void run_kernels(const Options& o, std::ostream& out) {
  const bool measured = !o.measurements.empty() || !o.nccl_tests.empty() || !o.torch_traces.empty();
  if (measured || !o.published.empty() || o.nodes > 0 || o.product_shapes || o.holdout || !o.report.empty()) {
    throw UsageError("--kernels",
                     "fits from a kernel measurement alone; it takes no measurements, --nccl-tests, "
                     "--torch-trace, --published, --nodes, --product-shapes, --holdout or --report");
  }
  if (o.cluster.empty())
    throw UsageError("--cluster", "expected the cluster preset or file whose GPU the kernels ran on");
  refuse_input_as_output("--out", o.out, {o.kernels, o.cluster});
  const OutputFile calibration_file("--out", o.out);
  const Cluster cluster = load_cluster(o.cluster);
  const double half_rate = cluster.gpu.kernels ? cluster.gpu.kernels->gemm_half_rate_flops : 0.0;
  fit::KernelBenchOptions options{.micro_batch = o.micro_batch,
                                  .peak_flops_per_second = cluster.gpu.peak_flops_per_second_fp16,
                                  .gemm_half_rate_flops = half_rate};
  if (!o.attention.empty()) options.attention = o.attention;  // else the reader's default, flash
  Calibration calibration;
  calibration.runtime = fit::measured_kernel_fits(o.kernels, options);
  const RuntimeCalibration& r = calibration.runtime;
  if (*r.gemm_fraction > 1 || *r.attention_forward_fraction > 1 || *r.attention_backward_fraction > 1) {
    throw UsageError("--cluster",
                     "the measured products ran at " + shortest(*r.gemm_fraction) + " x " + cluster.name +
                         "'s bf16 peak (" + shortest(cluster.gpu.peak_flops_per_second_fp16 / 1e12) +
                         " TFLOP/s): the kernels were measured on another GPU; give its cluster");
  }
  char line[400];
  std::snprintf(line, sizeof line,
                "Kernels of %s on %s's GPU (%.0f TFLOP/s bf16): products %.4f of peak, %s attention %.4f "
                "forward / %.4f backward\n",
                o.kernels.c_str(), cluster.name.c_str(), cluster.gpu.peak_flops_per_second_fp16 / 1e12,
                *r.gemm_fraction, options.attention.c_str(), *r.attention_forward_fraction,
                *r.attention_backward_fraction);
  out << line;
  if (cluster.gpu.kernels) {
    std::snprintf(
        line, sizeof line,
        "The cluster's gpu.kernels: products %.4f, attention %.4f / %.4f (element-wise %.4f and the "
        "half-rate size %.4g FLOPs stay)\n",
        cluster.gpu.kernels->gemm_fraction, cluster.gpu.kernels->attention_forward_fraction,
        cluster.gpu.kernels->attention_backward_fraction, cluster.gpu.kernels->elementwise_fraction,
        half_rate);
    out << line;
  }
  const std::string header = "Kernel efficiencies measured by validate/torch/kernels.py (" + o.kernels +
                             "), against " + cluster.name + "'s peak; `shardscope calibrate --kernels`.";
  const std::string yaml = fit::calibration_yaml(calibration, header);
  check_reads_back(yaml, o.out);
  write_together({{&calibration_file, yaml}});
  out << "\nWrote " << o.out << "\n";
}

void run_calibrate(const Options& o, std::ostream& out) {
  if (!o.kernels.empty()) return run_kernels(o, out);
  if (o.micro_batch > 0) throw UsageError("--micro-batch", "applies to --kernels only");
  if (!o.attention.empty()) throw UsageError("--attention", "applies to --kernels only");
  if (!o.published.empty()) return run_published(o, out);
  if (!o.runtime.empty()) throw UsageError("--runtime", "applies to --published only");
  if (!o.free.empty()) throw UsageError("--free", "applies to --published only");
  if (o.cluster.empty())
    throw UsageError("--cluster", "expected the cluster preset or file of the machine measured");
  std::vector<std::string> inputs = o.measurements;
  inputs.insert(inputs.end(), o.nccl_tests.begin(), o.nccl_tests.end());
  inputs.insert(inputs.end(), o.torch_traces.begin(), o.torch_traces.end());
  inputs.push_back(o.cluster);
  refuse_input_as_output("--out", o.out, inputs);
  refuse_input_as_output("--report", o.report, inputs);
  refuse_shared_outputs({{"--out", o.out}, {"--report", o.report}});
  const OutputFile calibration_file("--out", o.out);
  const OutputFile report_file = o.report.empty() ? OutputFile() : OutputFile("--report", o.report);
  Cluster cluster = load_cluster(o.cluster);
  if (o.nodes > 0) cluster.nodes = o.nodes;
  if (o.measurements.empty() && o.nccl_tests.empty() && o.torch_traces.empty()) {
    throw UsageError("calibrate",
                     "expected measurements JSON files, --nccl-tests LOG... or --torch-trace TRACE...");
  }
  const std::vector<shardscope::Measurements> files = load_measured(o, cluster, out);
  fit::FitOptions options;
  options.min_r_squared = o.min_r_squared;
  options.max_alpha_rms = o.max_alpha_rms;
  options.product_shapes = o.product_shapes;
  const fit::FitResult result = fit::fit_calibration(files, cluster, options);
  std::optional<fit::HoldoutScore> holdout;
  if (o.holdout) holdout = fit::holdout_score(files, cluster, options);
  const std::string yaml = fit::calibration_yaml(result.calibration, header(result));
  check_reads_back(yaml, o.out);
  fit::print_fit_table(result, options, out);
  warn_faster_than_links(result, cluster, out);
  if (holdout) print_holdout(*holdout, out);
  std::string report_text;
  if (report_file.requested()) {
    nlohmann::ordered_json report = fit::fit_report_json(result, options);
    if (holdout) report["holdout"] = fit::holdout_json(*holdout);
    report_text = report.dump(2) + "\n";
  }
  write_together({{&calibration_file, yaml}, {&report_file, report_text}});  // both or neither
  out << "\nWrote " << o.out << (report_file.requested() ? " and " + o.report : std::string()) << "\n";
}

}  // namespace

std::optional<Registered> register_calibrate(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "calibrate", "Fit calibration.yaml (alpha, bandwidth, efficiency, FLOP fractions) to measurements");
  auto o = std::make_shared<Options>();
  add_calibrate_options(*cmd, *o);
  return Registered{cmd, [o](std::ostream& out) { run_calibrate(*o, out); }};
}

}  // namespace shardscope::cli

// shardscope-validate: bench, run and describe on the cpu-mpi backend, or on the cuda-nccl one with --backend
// cuda-nccl (launched by mpirun or srun), or in one process without MPI (--no-mpi: an emulated rank on one
// GPU, or describe from a file); every failure prints "rank R: error: ..." and ends every rank with MPI_Abort
// (exit without MPI), never a hang.
#include <fcntl.h>
#include <mpi.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>

#include "planner/core/error.hpp"
#include "planner/io/calibration_parser.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/report/plan_json.hpp"
#include "planner/search/plan_check.hpp"
#include "planner/search/planner.hpp"
#include "validate/core/host_memory.hpp"
#include "validate/core/machine_cluster.hpp"
#include "validate/cpu/benchmarks.hpp"
#include "validate/cpu/cpu_machine_info.hpp"
#include "validate/cpu/pipeline_run.hpp"
#include "validate/cpu/run_plans.hpp"
#include "validate/measurements/measurements.hpp"
#include "validate/mpi/plan_runs.hpp"
#if SHARDSCOPE_HAVE_CUDA
#include "validate/cuda/cuda_entry.hpp"
#endif

namespace sv = shardscope::validate;

namespace {

constexpr int kExitBadInput = 2;
constexpr int kExitFailure = 4;

struct Arguments {
  std::string backend = "cpu-mpi";  // or "cuda-nccl"
  int emulate_rank = -1;            // cuda-nccl: run this rank of the plan on one GPU
  bool no_mpi = false;              // one process, MPI never initialised
  std::string scenario, calibration, plan_file, out, measurements;
  std::vector<std::string> strategies;
  double compute_scale = 1;
  int iterations = 2, warmup = 1;
  bool sequential = false;  // run: each plan's iterations in a row (cpu-mpi interleaves by default)
  sv::BenchOptions bench;
  sv::FaultInjection faults;
};

void write_file(const std::string& path, const std::string& text) {
  if (sv::world_rank() != 0) return;
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  std::ofstream out(path);
  out << text;
  out.close();
  if (!out) throw std::runtime_error(path + ": cannot write: " + std::strerror(errno));
}

// Before any measuring: --out must be a file its folder takes (a probe created and removed), so a bad path
// fails at once with the reason instead of after minutes of measurements.
void check_output(const std::string& path) {
  if (path.empty() || path == "-" || sv::world_rank() != 0) return;
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw std::invalid_argument("--out: cannot write " + path + ": it is a directory; expected a file path");
  const std::string probe = path + ".probe-" + std::to_string(::getpid());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) {
    const int error = errno;
    const std::string folder = std::filesystem::path(path).parent_path().string();
    throw std::invalid_argument("--out: cannot write " + path + ": " + std::strerror(error) +
                                (error == ENOENT && !folder.empty() ? " (no folder " + folder + ")" : ""));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

std::string json_text(const shardscope::Measurements& m) {
  return shardscope::measurements_to_json(m).dump(2) + "\n";
}

bool on_cuda(const Arguments& a);

// The scenario bench and run execute. Under tensor or context parallelism each rank runs its GPU's slice
// with the operators' mesh collectives on its mesh groups (cpu-mpi only); pipeline stages go to run-pipeline.
shardscope::Scenario data_parallel_scenario_of(const Arguments& a) {
  shardscope::Scenario s = shardscope::load_scenario_file(a.scenario);
  if (s.parallelism.pipelined())
    throw shardscope::InputError(a.scenario, 0, "parallelism.pipeline",
                                 "pipeline stages are run by run-pipeline, not by bench or run");
  if (s.parallelism.search())
    throw shardscope::InputError(a.scenario, 0, "parallelism.tensor",
                                 "the harness runs one mesh: give the tensor-parallel degree, not 'search'");
  if (s.mesh.sliced() && on_cuda(a)) {
    const shardscope::TensorSlice& m = s.mesh.tensor;
    throw shardscope::InputError(
        a.scenario, 0,
        m.degree > 1    ? "parallelism.tensor"
        : m.context > 1 ? "parallelism.context"
                        : "parallelism.expert",
        "tensor, context and expert parallelism run on the cpu-mpi backend only (cuda-nccl: not built)");
  }
  return s;
}

shardscope::Calibration calibration_of(const Arguments& a) {
  return a.calibration.empty() ? shardscope::Calibration{} : shardscope::load_calibration_file(a.calibration);
}

// The plans to run: --plan FILE (checked against the scenario), else the asked strategies; with `unfit` and
// no --strategy, the default strategies whose plans fit (the others listed there).
std::vector<sv::ValidationPlan> plans_of(const Arguments& a, const shardscope::Scenario& scenario,
                                         const shardscope::Calibration& calibration,
                                         std::vector<std::string>* unfit = nullptr) {
  if (!a.plan_file.empty()) {
    shardscope::Plan plan = shardscope::load_plan_file(a.plan_file, scenario.model);
    const std::vector<std::string> problems =
        shardscope::check_plan_configuration(plan, scenario, calibration);
    if (!problems.empty()) {
      throw shardscope::InputError(a.plan_file, 0, "plan",
                                   "made for another configuration: " + problems.front());
    }
    plan.predicted = shardscope::evaluate_plan(shardscope::ValidScenario(scenario), calibration, plan);
    return {{plan.strategy.empty() ? "plan-file" : plan.strategy, plan}};
  }
  if (a.strategies.empty())
    return sv::validation_plans(scenario, calibration, sv::default_validation_strategies(), unfit);
  return sv::validation_plans(scenario, calibration, a.strategies);
}

// The distinct products of every plan's program (each at its micro-batch), or a few squares without a
// scenario.
std::vector<sv::Gemm> bench_gemm_list(const Arguments& a) {
  if (a.scenario.empty()) {
    return {{"square", shardscope::OperatorKind::linear, 1, 256, 256, 256},
            {"square", shardscope::OperatorKind::linear, 1, 512, 512, 512},
            {"square", shardscope::OperatorKind::linear, 1, 1024, 1024, 1024}};
  }
  const shardscope::Scenario scenario = data_parallel_scenario_of(a);
  const shardscope::Calibration calibration = calibration_of(a);
  std::vector<sv::Gemm> out;
  std::set<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>> seen;
  std::vector<std::string> unfit;
  const std::vector<sv::ValidationPlan> plans = plans_of(a, scenario, calibration, &unfit);
  if (sv::world_rank() == 0 && !unfit.empty()) {
    std::string names;
    for (const std::string& n : unfit) names += (names.empty() ? "" : ", ") + n;
    std::fprintf(stderr,
                 "shardscope-validate: bench: %s: the plans of %s do not fit; their products are left out\n",
                 a.scenario.c_str(), names.c_str());
  }
  if (plans.empty())
    throw std::invalid_argument(a.scenario + ": no default strategy's plan fits the memory limit");
  for (const sv::ValidationPlan& vp : plans) {
    const shardscope::ExecutionOptions& e = scenario.execution;
    const shardscope::IterationProgram program = shardscope::build_iteration_program(
        shardscope::ValidScenario(scenario), calibration, vp.plan,
        shardscope::ProgramOptions{e.prefetch_depth, !e.overlap, e.bucket_bytes});
    for (const sv::Gemm& g :
         sv::distinct_gemms(scenario.model, program, {vp.plan.micro_batch, a.compute_scale})) {
      if (seen.insert({g.batch, g.m, g.n, g.k}).second) out.push_back(g);
    }
  }
  return out;
}

// True for --backend cuda-nccl; throws std::invalid_argument when it was not built, or for --emulate-rank
// without it.
bool on_cuda(const Arguments& a) {
  if (a.backend != "cuda-nccl") {
    if (a.emulate_rank >= 0) throw std::invalid_argument("--emulate-rank needs --backend cuda-nccl");
    return false;
  }
#if SHARDSCOPE_HAVE_CUDA
  return true;
#else
  throw std::invalid_argument(
      "--backend cuda-nccl: this shardscope-validate was built without it (SHARDSCOPE_WITH_CUDA off, or "
      "the CUDA toolkit, cuBLAS, NCCL or MPI not found at configure time)");
#endif
}

shardscope::Measurements run_bench(const Arguments& a) {
  if (on_cuda(a)) {
#if SHARDSCOPE_HAVE_CUDA
    return sv::cuda_bench(a.bench, bench_gemm_list(a), a.compute_scale, a.emulate_rank);
#endif
  }
  shardscope::Measurements m;
  m.machine = sv::cpu_machine_info(a.compute_scale);
  m.collectives = sv::bench_collectives(a.bench, m.machine.ranks_per_node);
  const std::vector<sv::Gemm> gemms = bench_gemm_list(a);
  m.gemms = sv::bench_gemms(gemms, a.bench);
  m.elementwise = sv::bench_elementwise(a.bench);
  m.copies = sv::bench_copies(a.bench);
  const sv::Gemm* largest = &gemms.front();
  for (const sv::Gemm& g : gemms) largest = g.flops() > largest->flops() ? &g : largest;
  m.overlap = sv::bench_overlap(*largest, {1048576.0, 16.0 * 1048576}, a.bench);
  return m;
}

void run(const Arguments& a) {
  const shardscope::Scenario scenario = data_parallel_scenario_of(a);
  const shardscope::Calibration calibration = calibration_of(a);
  const std::vector<sv::ValidationPlan> plans = plans_of(a, scenario, calibration);
  sv::RunOptions options;
  options.scenario_label = a.scenario;
  options.compute_scale = a.compute_scale;
  options.warmup_iterations = a.warmup;
  options.iterations = a.iterations;
  // A GPU holds one plan's memory at a time; on CPUs the plans take turns, iteration by iteration.
  options.interleave = !on_cuda(a) && !a.sequential;
  options.timeout_seconds = a.bench.timeout_seconds;
  options.faults = a.faults;
  shardscope::Measurements m;
  if (on_cuda(a)) {
#if SHARDSCOPE_HAVE_CUDA
    m = sv::cuda_run(scenario, calibration, plans, options, a.emulate_rank);
#endif
  } else {
    m.machine = sv::cpu_machine_info(a.compute_scale);
    m.iterations = sv::run_plans(scenario, calibration, plans, options);
  }
  write_file(a.out, json_text(m));
  if (sv::world_rank() == 0 && a.out != "-") {
    for (const shardscope::MeasuredIteration& r : m.iterations) {
      std::fprintf(stderr,
                   "%-12s micro-batch %lld x %d: measured %.3f s (planner %.3f s), peak %.0f B (program %.0f "
                   "B, planner %.0f B)%s\n",
                   r.strategy.c_str(), static_cast<long long>(r.micro_batch), r.micro_steps,
                   r.iteration_seconds, r.planner_iteration_seconds, r.peak_bytes, r.program_peak_bytes,
                   r.planner_peak_bytes,
                   r.same_plan_as.empty() ? "" : (", the plan of " + r.same_plan_as + ", run once").c_str());
    }
  }
}

// run-pipeline: the fastest pipeline of a pipelined scenario on the world's ranks (cpu-mpi only).
void run_pipeline(const Arguments& a) {
  if (on_cuda(a)) throw std::invalid_argument("run-pipeline runs on the cpu-mpi backend only");
  sv::PipelineRunOptions options;
  options.iterations = a.iterations;
  options.warmup = a.warmup;
  options.compute_scale = a.compute_scale;
  options.timeout_seconds = a.bench.timeout_seconds;
  const sv::PipelineRun run =
      sv::run_pipeline(shardscope::load_scenario_file(a.scenario), calibration_of(a), options);
  write_file(a.out, sv::pipeline_run_json(run).dump(2) + "\n");
  if (sv::world_rank() == 0 && a.out != "-")
    std::fprintf(stderr, "%s, %d micro-batches of %lld: measured %.3f s (planner %.3f s)\n",
                 run.pipeline.c_str(), run.micro_batches, static_cast<long long>(run.micro_batch),
                 run.measured_iteration_seconds, run.planner_iteration_seconds);
}

void describe(const Arguments& a) {
  shardscope::Measurements m;
  if (!a.measurements.empty()) {
    // The reader calibrate uses: every field checked (version, ranges), errors naming file:line: field.
    m = shardscope::load_measurements_file(a.measurements);
  } else {
    m = run_bench(a);
  }
  sv::MachineCluster numbers;
  try {
    numbers = sv::machine_cluster(m);
  } catch (const std::invalid_argument& e) {  // "measurements: no GEMM measured (gemms)": name the file
    if (a.measurements.empty()) throw;
    const std::string why = e.what();
    const std::string prefix = "measurements: ";
    throw shardscope::InputError(a.measurements, 0, "",
                                 why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why);
  }
  write_file(a.out, sv::machine_cluster_yaml(m, numbers));
}

// --no-mpi is for what one process does alone; anything that talks to other ranks needs MPI.
void check_no_mpi(const Arguments& a, bool describing) {
  if (!a.no_mpi) return;
  if (a.backend == "cuda-nccl" && a.emulate_rank >= 0) return;
  if (describing && !a.measurements.empty()) return;
  throw std::invalid_argument(
      "--no-mpi runs one process without MPI: it needs --backend cuda-nccl with --emulate-rank (bench or "
      "run), "
      "or describe --measurements FILE");
}

// True when argv holds --no-mpi: read before MPI_Init, which must not run then.
bool asks_no_mpi(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--no-mpi") == 0) return true;
  return false;
}

[[noreturn]] void abort_all(const std::string& message, int code) {
  std::fprintf(stderr, "shardscope-validate: rank %d: error: %s\n", sv::world_rank(), message.c_str());
  std::fflush(stderr);
  if (!sv::mpi_in_use()) std::exit(code);
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);  // MPI_Abort does not return; in case it does
}

// --out, --compute-scale and --timeout, on every subcommand.
void add_common_options(CLI::App* cmd, Arguments& a) {
  cmd->add_option("--out", a.out, "output file (- for standard output)")->required();
  cmd->add_option("--compute-scale", a.compute_scale, "factor on every product's rows and element-wise bytes")
      ->check(CLI::Range(1e-6, 1e6));
  cmd->add_option("--timeout", a.bench.timeout_seconds, "seconds any wait may last before every rank ends")
      ->check(CLI::Range(0.001, 86400.0));
}

CLI::App* add_bench_command(CLI::App& app, Arguments& a) {
  CLI::App* bench = app.add_subcommand("bench", "micro-benchmarks -> measurements.json");
  add_common_options(bench, a);
  bench->add_option("--emulate-rank", a.emulate_rank, "cuda-nccl: one process, one GPU, no collectives")
      ->check(CLI::Range(0, 1 << 20));
  bench->add_option("--scenario", a.scenario, "benchmark the products of this scenario's plans");
  bench->add_option("--strategy", a.strategies,
                    "plans whose products are benchmarked (default: those of run's whose plans fit)");
  bench->add_option("--min-bytes", a.bench.min_bytes, "smallest collective size")
      ->check(CLI::Range(4.0, 1e12));
  bench->add_option("--max-bytes", a.bench.max_bytes, "largest collective size")
      ->check(CLI::Range(4.0, 1e12));
  bench->add_option("--iterations", a.bench.iterations, "timed iterations per size")
      ->check(CLI::Range(1, 100000));
  bench->add_option("--group-size", a.bench.group_size, "intra-group size (default: ranks per node)")
      ->check(CLI::Range(1, 1 << 20));
  bench->add_option("--min-seconds", a.bench.min_seconds, "time per GEMM / bandwidth measurement")
      ->check(CLI::Range(0.0, 3600.0));
  return bench;
}

CLI::App* add_run_command(CLI::App& app, Arguments& a) {
  CLI::App* run_cmd = app.add_subcommand("run", "execute plans of SCENARIO -> run.json");
  add_common_options(run_cmd, a);
  run_cmd->add_option("scenario", a.scenario, "scenario YAML")->required();
  run_cmd->add_option("--strategy", a.strategies,
                      "shardscope, split or a baseline (default: shardscope ddp zero-2 zero-3 split)");
  run_cmd
      ->add_option("--emulate-rank", a.emulate_rank,
                   "cuda-nccl: run this rank of the plan on one GPU, collectives as device copies")
      ->check(CLI::Range(0, 1 << 20));
  run_cmd->add_option("--plan", a.plan_file, "run this plan file instead");
  run_cmd->add_option("--calibration", a.calibration, "calibration.yaml for the planner's plans");
  run_cmd->add_option("--iterations", a.iterations, "measured iterations per plan")
      ->check(CLI::Range(1, 1000));
  run_cmd->add_option("--warmup", a.warmup, "untimed iterations per plan")->check(CLI::Range(0, 1000));
  run_cmd->add_flag("--sequential", a.sequential,
                    "run each plan's iterations in a row (default on cpu-mpi: the plans take turns, one "
                    "iteration each per round, so a slow spell of the machine falls on all of them; "
                    "cuda-nccl always runs them in a row)");
  run_cmd->add_option("--fail-rank", a.faults.fail_rank, "test: this rank fails at its first compute task");
  run_cmd->add_option("--stall-rank", a.faults.stall_rank,
                      "test: this rank stalls before its first collective");
  run_cmd->add_option("--stall-seconds", a.faults.stall_seconds, "test: how long it stalls");
  return run_cmd;
}

CLI::App* add_pipeline_command(CLI::App& app, Arguments& a) {
  CLI::App* cmd = app.add_subcommand(
      "run-pipeline", "execute the fastest pipeline of a pipelined SCENARIO (parallelism.pipeline) -> JSON");
  add_common_options(cmd, a);
  cmd->add_option("scenario", a.scenario, "scenario YAML with parallelism.pipeline")->required();
  cmd->add_option("--calibration", a.calibration, "calibration.yaml for the planner");
  cmd->add_option("--iterations", a.iterations, "measured iterations")->check(CLI::Range(1, 1000));
  cmd->add_option("--warmup", a.warmup, "untimed iterations")->check(CLI::Range(0, 1000));
  return cmd;
}

CLI::App* add_describe_command(CLI::App& app, Arguments& a) {
  CLI::App* describe_cmd = app.add_subcommand("describe", "this machine as a cluster YAML");
  add_common_options(describe_cmd, a);
  describe_cmd->add_option("--measurements", a.measurements, "describe from bench's measurements.json");
  return describe_cmd;
}

// Runs the parsed subcommand; an error ends every rank with the exit code of its kind.
void run_subcommand(const Arguments& a, const CLI::App& bench, const CLI::App& run_cmd,
                    const CLI::App& pipeline_cmd, const CLI::App& describe_cmd) {
  try {
    check_no_mpi(a, describe_cmd.parsed());
    check_output(a.out);
    if (bench.parsed() && a.bench.min_bytes > a.bench.max_bytes) {
      throw std::invalid_argument("--min-bytes " + std::to_string(static_cast<long long>(a.bench.min_bytes)) +
                                  " is above --max-bytes " +
                                  std::to_string(static_cast<long long>(a.bench.max_bytes)) +
                                  ": no collective size would be measured");
    }
    if (bench) write_file(a.out, json_text(run_bench(a)));
    if (run_cmd) run(a);
    if (pipeline_cmd) run_pipeline(a);
    if (describe_cmd) describe(a);
  } catch (const shardscope::InputError& e) {
    abort_all(e.what(), kExitBadInput);
  } catch (const shardscope::PlanDoesNotFit& e) {
    abort_all(e.what(), kExitBadInput);
  } catch (const std::invalid_argument& e) {
    abort_all(e.what(), kExitBadInput);
  } catch (const std::exception& e) {
    abort_all(e.what(), kExitFailure);
  }
}

}  // namespace

int main(int argc, char** argv) {
  sv::keep_freed_host_memory();
  const bool no_mpi = asks_no_mpi(argc, argv);
  int provided = MPI_THREAD_SERIALIZED;
  if (!no_mpi) MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  auto finalize = [] {
    if (sv::mpi_in_use()) MPI_Finalize();
  };
  Arguments a;
  CLI::App app{
      "shardscope-validate: run shardscope's plans and micro-benchmarks on this machine (cpu-mpi or "
      "cuda-nccl)"};
  app.require_subcommand(1);
  app.add_option("--backend", a.backend,
                 "cpu-mpi (MPI + Eigen) or cuda-nccl (cuBLAS + NCCL, one rank per GPU)")
      ->check(CLI::IsMember({"cpu-mpi", "cuda-nccl"}));
  app.add_flag("--no-mpi", a.no_mpi,
               "one process without MPI (no mpirun needed): cuda-nccl with --emulate-rank, or describe "
               "--measurements");
  const CLI::App* bench = add_bench_command(app, a);
  const CLI::App* run_cmd = add_run_command(app, a);
  const CLI::App* pipeline_cmd = add_pipeline_command(app, a);
  const CLI::App* describe_cmd = add_describe_command(app, a);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (sv::world_rank() == 0) app.exit(e);
    finalize();
    return e.get_exit_code() == 0 ? 0 : kExitBadInput;
  }
  if (provided < MPI_THREAD_SERIALIZED)
    abort_all("the MPI library does not support MPI_THREAD_SERIALIZED", kExitFailure);
  run_subcommand(a, *bench, *run_cmd, *pipeline_cmd, *describe_cmd);
  finalize();
  return 0;
}

// Simulation runners: a child `shardscope` process returns exactly the in-process result, and its
// failures (timeout, crash, exit status, bad result, bad job) become clear errors.
#include "sim/runner.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "planner/core/error.hpp"
#include "planner/io/scenario_parser.hpp"
#include "planner/search/planner.hpp"
#include "sim/simulation_error.hpp"

namespace shardscope::sim {
namespace {

const std::string kBinary = SHARDSCOPE_BINARY;

const char* kTitan =
    "model: {preset: nd-48x1536}\ncluster: {preset: titan-rtx-8-pcie3}\n"
    "training: {memory_limit: 8GB, runtime_reserve: 512MiB, precision: mixed-fp16, max_micro_batch: 8}\n";

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("shardscope_runner_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

std::string write_file(const std::string& name, const std::string& text, bool executable = false) {
  const std::string path = temp_path(name);
  std::ofstream(path) << text;
  if (executable) ::chmod(path.c_str(), 0700);
  return path;
}

SimulationJob titan_job(const std::string& strategy) {
  SimulationJob job;
  job.scenario_file = write_file("titan.yaml", kTitan);
  const Scenario s = load_scenario_file(job.scenario_file);
  const StrategyResult planned =
      plan_strategy(ValidScenario(s), Calibration{}, space_by_name(strategy, s.training));
  EXPECT_TRUE(planned.fits);
  job.plan = planned.plan;
  job.timeout_seconds = 300;
  return job;
}

TEST(Runner, AChildProcessReturnsExactlyTheInProcessResult) {
  SimulationJob job = titan_job("zero-2");
  // Every option differs from its default, so each must reach the child. Prefetch 0, not 2: at depth 2 this
  // plan (made for depth 1) needs 7.57 GiB, over the 8 GB limit, and the child refuses it (exit 3).
  job.options.prefetch_depth = 0;
  job.options.trace_ranks = "3";
  job.options.coarse_above = 4;
  job.options.bucket_bytes = 25e6;
  const IterationResult child = ChildProcessRunner(kBinary).run(job);
  const IterationResult here = InProcessRunner().run(job);
  EXPECT_GT(child.iteration_seconds, 0);
  EXPECT_EQ(child.gpus.size(), 8u);
  EXPECT_FALSE(child.trace.empty());
  EXPECT_FALSE(child.links.empty());
  for (const MemorySample& m : child.memory) EXPECT_LT(m.rank, 3);
  EXPECT_TRUE(child == here);
  std::filesystem::remove(job.scenario_file);
}

TEST(Runner, ASecondInProcessRunIsRefusedButChildRunsAreNot) {
  const SimulationJob job = titan_job("fsdp");
  const IterationResult first = InProcessRunner().run(job);
  EXPECT_THROW(InProcessRunner().run(job), SimulationError);
  EXPECT_TRUE(ChildProcessRunner(kBinary).run(job) == first);
  std::filesystem::remove(job.scenario_file);
}

TEST(Runner, TheChildsInputErrorComesBackAsAnInputError) {
  SimulationJob job = titan_job("fsdp");
  job.plan.operators.resize(3);
  try {
    ChildProcessRunner(kBinary).run(job);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "plan 'fsdp'");
    EXPECT_GT(e.line(), 0);  // the plan reader names the line, also through the child
    EXPECT_NE(std::string(e.what()).find("plan.operators: the plan has 3 operators"), std::string::npos)
        << e.what();
  }
  job.scenario_file = "/nonexistent-dir/s.yaml";
  EXPECT_THROW(ChildProcessRunner(kBinary).run(job), InputError);
}

// A stand-in for the shardscope binary: a shell script ($6 is the result path: simulate SCENARIO --plan PLAN
// --result-json RESULT).
std::string fake_binary(const std::string& name, const std::string& body) {
  return write_file(name, "#!/bin/sh\n" + body + "\n", true);
}

std::string simulation_error(const std::string& binary, double timeout_seconds = 0) {
  SimulationJob job;
  job.scenario_file = "s.yaml";
  job.timeout_seconds = timeout_seconds;
  try {
    ChildProcessRunner(binary).run(job);
  } catch (const SimulationError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Runner, AChildPastItsTimeoutIsKilled) {
  const std::string binary = fake_binary("sleeper.sh", "exec sleep 30");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(simulation_error(binary, 0.3),
            "simulation: the simulation process timed out after 0.3 s and was killed");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10);
  std::filesystem::remove(binary);
}

TEST(Runner, ChildFailuresCarryTheChildsMessage) {
  std::string binary = fake_binary("fails.sh", "echo 'error: simulation: boom' >&2; exit 1");
  EXPECT_EQ(simulation_error(binary),
            "simulation: the simulation process failed (exit status 1): simulation: boom");
  binary = fake_binary("silent.sh", "exit 4");
  EXPECT_EQ(simulation_error(binary),
            "simulation: the simulation process failed (exit status 4): no error message");
  binary = fake_binary("crashes.sh", "echo 'dying' >&2; kill -9 $$");
  EXPECT_EQ(simulation_error(binary), "simulation: the simulation process died of signal 9: dying");
  binary = fake_binary("lazy.sh", "exit 0");
  EXPECT_NE(simulation_error(binary).find("exited without writing its result"), std::string::npos);
  EXPECT_NE(simulation_error(temp_path("no-such-binary")).find("cannot start the simulation process"),
            std::string::npos);
  for (const char* name : {"fails.sh", "silent.sh", "crashes.sh", "lazy.sh"})
    std::filesystem::remove(temp_path(name));
}

TEST(Runner, AChildsInputErrorKeepsItsFileLineAndText) {
  const std::string binary = fake_binary(
      "input.sh", "echo 'error: /x/s.yaml:7: training.micro_batch: expected 1 or more' >&2; exit 2");
  SimulationJob job;
  job.scenario_file = "s.yaml";
  try {
    ChildProcessRunner(binary).run(job);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "/x/s.yaml");
    EXPECT_EQ(e.line(), 7);
    EXPECT_EQ(std::string(e.what()), "/x/s.yaml:7: training.micro_batch: expected 1 or more");
  }
  std::filesystem::remove(binary);
}

TEST(Runner, AMalformedResultFromTheChildIsAnInputError) {
  const std::string binary = fake_binary("bad-result.sh", "echo '{\"format\": 1}' > \"$6\"");
  SimulationJob job;
  job.scenario_file = "s.yaml";
  try {
    ChildProcessRunner(binary).run(job);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(e.file().find("result.json"), std::string::npos) << e.what();
    EXPECT_EQ(e.field(), "version");  // the first missing key
  }
  std::filesystem::remove(binary);
}

TEST(Runner, OptionsTheCommandLineCannotCarryAreRejected) {
  const std::string never_run = temp_path("never-run");
  SimulationJob job;
  job.scenario_file = "s.yaml";
  const auto field_of = [&](const SimulationJob& j) -> std::string {
    try {
      ChildProcessRunner(never_run).run(j);
    } catch (const InputError& e) {
      return e.field();
    }
    return "no error";
  };
  job.options.prefetch_depth = -1;
  EXPECT_EQ(field_of(job), "options.prefetch_depth");
  job.options = IterationOptions{};
  job.options.bucket_bytes = 1.5;
  EXPECT_EQ(field_of(job), "options.bucket_bytes");
  job.options = IterationOptions{};
  job.options.trace_ranks = "-2";
  EXPECT_EQ(field_of(job), "options.trace_ranks");
}

// A test double: what a GUI or sweep test uses instead of SimGrid; it records the jobs it was given.
class FakeRunner final : public SimulationRunner {
 public:
  IterationResult run(const SimulationJob& job) override {
    jobs.push_back(job);
    IterationResult r;
    r.iteration_seconds = job.options.overlap ? 1.0 : 2.0;
    return r;
  }
  std::vector<SimulationJob> jobs;
};

// Code written against the interface: the speed-up of overlapping streams over one serial stream.
double overlap_speedup(SimulationRunner& runner, SimulationJob job) {
  job.options.overlap = false;
  const double serial_seconds = runner.run(job).iteration_seconds;
  job.options.overlap = true;
  return serial_seconds / runner.run(job).iteration_seconds;
}

TEST(Runner, AFakeRunnerStandsInForTheSimulator) {
  FakeRunner fake;
  SimulationJob job;
  job.scenario_file = "s.yaml";
  job.options.prefetch_depth = 3;
  EXPECT_EQ(overlap_speedup(fake, job), 2.0);
  ASSERT_EQ(fake.jobs.size(), 2u);
  EXPECT_FALSE(fake.jobs[0].options.overlap);
  EXPECT_TRUE(fake.jobs[1].options.overlap);
  EXPECT_EQ(fake.jobs[1].options.prefetch_depth, 3);
  EXPECT_EQ(fake.jobs[1].scenario_file, "s.yaml");
}

}  // namespace
}  // namespace shardscope::sim

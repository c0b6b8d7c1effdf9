// SimulationRunner: where a simulation runs (this process, a child `shardscope` process, a test double),
// behind one interface, so that callers needing several simulations (GUI, sweeps, comparisons) do not care.
#pragma once

#include <string>

#include "exchange/iteration_result.hpp"
#include "exchange/simulation_job.hpp"

namespace shardscope::sim {

// SimulationJob (exchange/simulation_job.hpp): one simulation to run, its scenario named by its YAML file.

class SimulationRunner {
 public:
  virtual ~SimulationRunner() = default;
  // The full result of the job. Throws InputError for bad input (scenario, plan, options) and
  // SimulationError when the simulation fails, cannot progress or runs out of time.
  virtual IterationResult run(const SimulationJob& job) = 0;
};

// Runs the simulation inside this process: loads the scenario and calls simulate_iteration. SimGrid
// allows one engine per process, so this is for one-shot use (a command line run, a test); a second
// run in the same process throws SimulationError. The timeout is not enforced.
class InProcessRunner final : public SimulationRunner {
 public:
  IterationResult run(const SimulationJob& job) override;
};

// Runs each job in a fresh child process (process/subprocess.hpp: posix_spawn, safe in a multi-threaded
// parent) under the protocol of exchange/child_protocol.hpp: `SHARDSCOPE_BINARY simulate SCENARIO --plan
// PLAN --result-json RESULT [options]` with the plan and result in a private temporary directory, killed
// (SIGKILL) at the timeout. A child's exit status 2 becomes an InputError and any other failure a
// SimulationError, each carrying the child's error message.
class ChildProcessRunner final : public SimulationRunner {
 public:
  explicit ChildProcessRunner(std::string shardscope_binary);
  IterationResult run(const SimulationJob& job) override;

 private:
  std::string binary_;
};

}  // namespace shardscope::sim

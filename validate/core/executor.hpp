// ProgramExecutor: runs an iteration program on a real machine, rank by rank, as the simulator runs it: a
// compute stream and a communication stream (two threads), each in program order, a task starting once the
// task it waits for on the other stream is done; memory taken and given back through the counting allocator.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "planner/core/model.hpp"
#include "planner/program/iteration_program.hpp"
#include "validate/core/counting_allocator.hpp"
#include "validate/core/operator_work.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope::validate {

// The machine side: kernels and collectives (cpu-mpi: Eigen and MPI; tests: a fake that records).
class ExecutionBackend {
 public:
  virtual ~ExecutionBackend() = default;
  // Runs a compute task's products and element-wise bytes (on the compute stream's thread).
  virtual void run_compute(const KernelWork& work) = 0;
  // Runs a collective task on its group (on the communication stream's thread; the compute stream's when the
  // program is serial). Must give up with ExecutionError after the backend's timeout, never wait forever.
  virtual void run_collective(const Task& task) = 0;
};

// A failure of the run (a timeout, a rank that failed): what every rank prints before the job is ended.
class ExecutionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct IterationMeasurement {
  double iteration_seconds = 0;     // from the start of the first task to the end of the last, either stream
  double peak_bytes = 0;            // the counting allocator's high-water mark, resident states included
  std::vector<MeasuredTask> tasks;  // in program order (micro-steps, then the update)
};

struct ExecutorOptions {
  WorkScale scale;
  double wait_timeout_seconds = 60;  // the longest a stream waits for the other one
};

class ProgramExecutor {
 public:
  ProgramExecutor(const Model& model, const IterationProgram& program, ExecutorOptions options);

  // Takes the program's resident bytes (states and reserve), once before the iterations.
  void allocate_resident(CountingAllocator& allocator) const;
  // One iteration; the allocator's peak window restarts at its start. Throws ExecutionError when a stream
  // waits longer than the timeout or the backend fails (the other stream is stopped first).
  IterationMeasurement run_iteration(ExecutionBackend& backend, CountingAllocator& allocator) const;

 private:
  const Model& model_;
  const IterationProgram& program_;
  ExecutorOptions options_;
  std::vector<KernelWork> work_;  // per task of the program
};

}  // namespace shardscope::validate

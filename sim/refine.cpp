// Refinement: each candidate plan simulated on its own, the fastest under simulation chosen.
#include "sim/refine.hpp"

#include <algorithm>

#include "sim/simulation_error.hpp"

namespace shardscope::sim {

RefineOutcome refine_plans(const std::vector<Plan>& candidates, SimulationRunner& runner,
                           const SimulationJob& job) {
  RefineOutcome out;
  for (const Plan& plan : candidates) {
    RefinedCandidate candidate;
    candidate.plan = plan;
    SimulationJob one = job;
    one.plan = plan;
    try {
      const IterationResult result = runner.run(one);
      candidate.simulated = true;
      candidate.simulated_iteration_seconds = result.iteration_seconds;
      candidate.simulated_samples_per_second = result.samples_per_second;
      for (const GpuResult& g : result.gpus) {
        candidate.simulated_peak_memory_bytes =
            std::max(candidate.simulated_peak_memory_bytes, g.peak_memory_bytes);
      }
    } catch (const SimulationError& e) {
      candidate.failure = e.what();
    }
    out.candidates.push_back(std::move(candidate));
  }
  for (std::size_t i = 0; i < out.candidates.size(); ++i) {
    const RefinedCandidate& c = out.candidates[i];
    if (!c.simulated) continue;
    if (out.chosen < 0 ||
        c.simulated_samples_per_second >
            out.candidates[static_cast<std::size_t>(out.chosen)].simulated_samples_per_second) {
      out.chosen = static_cast<int>(i);
    }
  }
  return out;
}

}  // namespace shardscope::sim

// A tensor-parallel mesh search as JSON: every mesh's plan and its fastest fitting baseline.
#include "planner/report/internal/mesh_json.hpp"

namespace shardscope {
nlohmann::ordered_json mesh_search_json(const MeshSearch& search) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < search.options.size(); ++i) {
    const MeshOption& o = search.options[i];
    const StrategyResult& best = o.report.best;
    nlohmann::ordered_json row{{"tensor", o.slice.degree},
                               {"sequence_parallel", o.slice.sequence_parallel},
                               {"context", o.slice.context},
                               {"expert", o.slice.expert},
                               {"data_parallel", o.scenario.cluster.gpus() / o.slice.context},
                               {"gpus", physical_gpus(o.scenario)},
                               {"fits", best.fits}};
    if (best.fits) {
      row["strategy"] = best.plan.strategy;
      row["micro_batch"] = best.plan.micro_batch;
      row["samples_per_second"] = best.plan.predicted.samples_per_second;
      row["tokens_per_second"] = best.plan.predicted.tokens_per_second;
      row["peak_memory_bytes"] = best.plan.predicted.peak_memory_bytes;
    } else {
      row["shortfall_bytes"] = best.shortfall_bytes;
    }
    if (const StrategyResult* f = fsdp_baseline(o.report); f != nullptr && f->fits)
      row["fsdp_tokens_per_second"] = f->plan.predicted.tokens_per_second;
    if (const StrategyResult* b = fastest_fitting_baseline(o.report)) {
      row["best_baseline"] = b->strategy;
      row["best_baseline_tokens_per_second"] = b->plan.predicted.tokens_per_second;
    }
    row["chosen"] = search.any_fits() && i == search.best;
    rows.push_back(std::move(row));
  }
  return {{"meshes", std::move(rows)}, {"refused", search.refused}};
}

}  // namespace shardscope

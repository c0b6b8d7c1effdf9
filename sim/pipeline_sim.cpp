// Simulated pipeline: the stage programs one after another on one platform, then the schedule's run with its
// sends as flows (sim/pipeline_sim.hpp).
#include "sim/pipeline_sim.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <string>
#include <utility>

#include "planner/core/error.hpp"
#include "planner/core/mesh.hpp"
#include "planner/program/program_size.hpp"
#include "planner/search/plan_evaluation.hpp"
#include "sim/collectives/schedule.hpp"
#include "sim/engine.hpp"
#include "sim/internal/iteration_executor.hpp"
#include "sim/internal/iteration_rings.hpp"
#include "sim/internal/pipeline_run.hpp"
#include "sim/resources.hpp"
#include "sim/simulation_error.hpp"

namespace sg4 = simgrid::s4u;

namespace shardscope::sim {
namespace {

// Where the engine's completion signal goes: the stage program or the schedule running now.
using Dispatch = std::function<void(const sg4::Activity&)>;

// One stage program at one count of micro-steps, ready to run on the shared platform.
struct StageProgram {
  std::unique_ptr<ValidScenario> scenario;
  Plan plan;
  IterationProgram program;
  std::unique_ptr<CollectiveCost> cost;
  NcclFamilies nccl;
  ExchangeFamilies exchanges;
  bool nccl_model = false;
  std::int64_t activities = 0;
  int unproven_step_limit = 0;
};

// The stage's scenario and plan at `micro_steps` micro-steps, its program and flows.
StageProgram stage_program(const ValidScenario& stage, const Plan& plan, int micro_steps,
                           const Calibration& calibration, const IterationOptions& options) {
  Scenario s = stage.scenario();
  s.training.global_batch = 0;
  s.training.gradient_accumulation_steps = micro_steps;
  StageProgram out;
  out.scenario = std::make_unique<ValidScenario>(std::move(s));
  out.plan = plan;
  out.plan.gradient_accumulation_steps = micro_steps;
  const ValidScenario& v = *out.scenario;
  out.program = build_iteration_program(v, calibration, out.plan, program_options(v.scenario().execution));
  out.cost = std::make_unique<CollectiveCost>(v.cluster, v.training.group_size, calibration,
                                              plan_collectives(v.execution, out.plan));
  out.nccl_model = out.cost->model() == CollectiveModel::nccl;
  out.nccl = nccl_families(out.program, *out.cost, options.merge_nccl_channels);
  out.exchanges = exchange_families(out.program, v.cluster.gpus(), options.coarse_above);
  const ProgramSize size(out.program, *out.cost, v.cluster.gpus(), options.coarse_above);
  out.unproven_step_limit = out.program.micro_steps;
  out.activities = size.activities(out.program.micro_steps);
  return out;
}

// Runs one stage program on the platform's first ranks from the engine's current date; its seconds.
double run_stage_program(sg4::Engine& engine, const Platform& platform, StageProgram& stage,
                         const Calibration& calibration, const IterationOptions& options,
                         Dispatch& dispatch) {
  const ValidScenario& v = *stage.scenario;
  const int gpus = v.cluster.gpus();
  const RingContext rings{*stage.cost,
                          calibration,
                          gpus,
                          v.training.group_size,
                          options.coarse_above,
                          stage.nccl_model ? &stage.nccl : nullptr,
                          &stage.exchanges,
                          {}};
  IterationLog log;
  log.traced_ranks.assign(static_cast<std::size_t>(gpus), 0);
  IterationExecutor executor(stage.program, rings, platform, log, options.steady_state,
                             stage.unproven_step_limit, nullptr);
  dispatch = [&executor](const sg4::Activity& a) { executor.on_completion(a); };
  const double began = sg4::Engine::get_clock();
  executor.start();
  const double ended = run_to_completion(engine, log.finished_streams, 2 * static_cast<std::int64_t>(gpus),
                                         "a pipeline stage's program");
  dispatch = nullptr;
  return ended - began + executor.skipped_steps() * executor.step_period_seconds();
}

// The stage plans' distinct scenarios (identical stages share one), in stage order of first use.
std::vector<std::size_t> distinct_stages(const PipelineOption& option, std::vector<std::size_t>& of_stage) {
  std::vector<std::size_t> firsts;
  std::map<const ValidScenario*, std::size_t> seen;
  for (std::size_t s = 0; s < option.stage_plans.size(); ++s) {
    const ValidScenario* key = option.stage_plans[s].scenario.get();
    auto [it, fresh] = seen.emplace(key, firsts.size());
    if (fresh) firsts.push_back(s);
    of_stage.push_back(it->second);
  }
  return firsts;
}

// The cluster the platform models: the whole one, as its data-parallel view under tensor parallelism.
Cluster platform_cluster(const Scenario& whole, const PipelineOption& option) {
  try {
    return option.slice.degree > 1 ? data_parallel_cluster(whole.cluster, option.slice.degree)
                                   : whole.cluster;
  } catch (const MeshError& e) {
    throw InputError(whole.source_file, 0, e.field(), e.what());
  }
}

// Every distinct stage program at m and m + 1 micro-steps, and the routes they and the sends need.
struct PreparedPipeline {
  std::vector<std::size_t> of_stage;  // each stage's distinct program
  std::vector<std::size_t> firsts;    // each distinct program's first stage
  std::vector<std::pair<StageProgram, StageProgram>> programs;
  std::set<std::pair<int, int>> pairs;
  std::int64_t activities = 0;
};

PreparedPipeline prepare(const PipelineOption& option, int ranks, int virtual_stages,
                         const Calibration& calibration, const IterationOptions& options) {
  PreparedPipeline out;
  out.firsts = distinct_stages(option, out.of_stage);
  const int m = option.micro_batches;
  for (const std::size_t s : out.firsts) {
    const PipelineStagePlan& stage = option.stage_plans[s];
    if (stage.scenario->cluster.gpus() != ranks)
      throw SimulationError(
          "stage " + std::to_string(s) + " runs on " + std::to_string(stage.scenario->cluster.gpus()) +
          " data-parallel ranks, not the " + std::to_string(ranks) + " of its share of the platform");
    out.programs.emplace_back(stage_program(*stage.scenario, stage.plan.plan, m, calibration, options),
                              stage_program(*stage.scenario, stage.plan.plan, m + 1, calibration, options));
    for (StageProgram* p : {&out.programs.back().first, &out.programs.back().second}) {
      out.activities += p->activities;
      for (const auto& pair :
           routed_pairs(p->program, ranks, p->scenario->training.group_size, p->nccl, p->nccl_model))
        out.pairs.insert(pair);
      for (const auto& pair : exchange_pairs(p->exchanges)) out.pairs.insert(pair);
    }
  }
  const int stages = option.stages;
  for (int s = 0; s < stages;
       ++s) {  // each stage's rank i to the next's (the last to the first: interleaved)
    const int next = (s + 1) % stages;
    if (next == 0 && virtual_stages == 1) continue;
    for (int i = 0; i < ranks; ++i) {
      out.pairs.insert({s * ranks + i, next * ranks + i});
      out.pairs.insert({next * ranks + i, s * ranks + i});
    }
  }
  out.activities += 4LL * m * virtual_stages * stages * ranks;  // every op and its send
  return out;
}

// Each stage's forward, backward and tail per micro-batch from its program's two runs.
std::vector<StageDurations> simulate_stage_programs(sg4::Engine& engine, const Platform& platform,
                                                    const PipelineOption& option, PreparedPipeline& prepared,
                                                    const Calibration& calibration,
                                                    const IterationOptions& options, Dispatch& dispatch) {
  const int m = option.micro_batches;
  std::vector<StageDurations> distinct;
  for (std::size_t k = 0; k < prepared.programs.size(); ++k) {
    for (StageProgram* p : {&prepared.programs[k].first, &prepared.programs[k].second}) {
      for (auto& [key, family] : p->nccl) fit_nccl_flows(family.flows, family.estimate, platform);
      fit_exchange_families(p->exchanges, platform);
    }
    const double at_m =
        run_stage_program(engine, platform, prepared.programs[k].first, calibration, options, dispatch);
    const double at_more =
        run_stage_program(engine, platform, prepared.programs[k].second, calibration, options, dispatch);
    const PipelineStagePlan& stage = option.stage_plans[prepared.firsts[k]];
    const double step = at_more - at_m;
    const double forward = step * plan_forward_share(*stage.scenario, calibration, stage.plan.plan);
    distinct.push_back({forward, step - forward, at_m - m * step});
  }
  std::vector<StageDurations> out;
  for (const std::size_t k : prepared.of_stage) out.push_back(distinct[k]);
  return out;
}

PipelineRunShape run_shape(const PipelineSearch& search, const PipelineOption& option, int ranks) {
  bool blocking = false;
  for (const PipelineStagePlan& s : option.stage_plans)
    blocking = blocking || s.scenario->scenario().execution.runtime.pipeline_sends_block;
  const int v = search.schedule == PipelineSchedule::interleaved ? search.virtual_stages : 1;
  return {search.schedule,       v,
          option.micro_batches,  ranks,
          option.boundary_bytes, blocking ? PipelineSends::blocking : PipelineSends::asynchronous};
}

PipelineSimulation summarise(const PipelineRun& run, const std::vector<StageDurations>& durations) {
  PipelineSimulation out;
  for (std::size_t s = 0; s < durations.size(); ++s) {
    SimulatedStage st;
    const StageDurations& d = durations[s];
    st.forward_seconds = d.forward_seconds;
    st.step_seconds = d.forward_seconds + d.backward_seconds;
    st.tail_seconds = d.tail_seconds;
    st.end_seconds = run.stage_end_seconds(static_cast<int>(s));
    st.busy_seconds = run.stage_busy_seconds(static_cast<int>(s));
    out.iteration_seconds = std::max(out.iteration_seconds, st.end_seconds);
    out.stages.push_back(st);
  }
  for (SimulatedStage& st : out.stages) st.idle_seconds = out.iteration_seconds - st.busy_seconds;
  out.first_ranks = run.first_ranks();
  out.first_ranks.iteration_seconds = out.iteration_seconds;
  for (std::size_t s = 0; s < out.first_ranks.stages.size(); ++s) {
    ScheduledStage& stage = out.first_ranks.stages[s];
    stage.busy_seconds = durations[s].tail_seconds;
    for (const ScheduledOp& op : stage.ops) stage.busy_seconds += op.end_seconds - op.start_seconds;
    stage.idle_seconds = out.iteration_seconds - stage.busy_seconds;
  }
  out.sends = run.sends();
  out.mean_send_seconds = run.mean_send_seconds();
  out.slowest_send_seconds = run.slowest_send_seconds();
  return out;
}

}  // namespace

PipelineSimulation simulate_pipeline(const Scenario& whole, const PipelineSearch& search,
                                     const PipelineOption& option, const Calibration& calibration,
                                     const IterationOptions& options) {
  if (!option.fits || option.stage_plans.empty())
    throw SimulationError("the pipeline to simulate does not fit: " + option.why_not);
  const Cluster cluster = platform_cluster(whole, option);
  const int ranks = cluster.gpus() / option.stages;
  const PipelineRunShape shape = run_shape(search, option, ranks);
  PreparedPipeline prepared = prepare(option, ranks, shape.virtual_stages, calibration, options);
  check_simulation_size({"the pipeline", cluster.gpus(), 0, prepared.activities}, options.max_activities);
  std::optional<Platform> platform;
  std::optional<PipelineRun> run;
  std::vector<StageDurations> durations;
  // The engine's completion signal outlives this call: it holds the dispatch, not a reference to it.
  auto dispatch = std::make_shared<Dispatch>();
  try {
    sg4::Engine& engine = create_engine();
    platform.emplace(cluster, calibration,
                     std::vector<std::pair<int, int>>(prepared.pairs.begin(), prepared.pairs.end()));
    sg4::Activity::on_completion_cb([dispatch](const sg4::Activity& a) {
      if (*dispatch) (*dispatch)(a);
    });
    durations = simulate_stage_programs(engine, *platform, option, prepared, calibration, options, *dispatch);
    run.emplace(*platform, shape, durations);
    *dispatch = [&run](const sg4::Activity& a) { run->on_completion(a); };
    run->start();
    run_to_completion(engine, run->finished_gpus(), run->gpus(), "the pipeline's schedule");
    *dispatch = nullptr;
  } catch (const simgrid::Exception& e) {
    *dispatch = nullptr;
    throw SimulationError(std::string("SimGrid: ") + e.what());
  }
  PipelineSimulation out = summarise(*run, durations);
  out.platform_gpus = cluster.gpus();
  out.stage_programs = static_cast<int>(prepared.programs.size());
  out.activities = prepared.activities;
  return out;
}

}  // namespace shardscope::sim

// Pipeline search: stages over whole nodes (or inside them), an exact min-max cut of the layers, one exact
// plan per stage.
#include "planner/report/pipeline_search.hpp"

#include <algorithm>
#include <utility>

#include "planner/core/error.hpp"
#include "planner/core/scenario.hpp"
#include "planner/cost/topology_cost.hpp"
#include "planner/report/internal/pipeline_partition.hpp"
#include "planner/search/plan_evaluation.hpp"

namespace shardscope {
namespace {

using pipeline_internal::kInfinity;
using pipeline_internal::Partition;
using pipeline_internal::StageEval;

// The whole model on one stage's GPUs (whole nodes, or part of one node: pipeline_stage_cluster), a PaRO
// group of a node becoming the stage's GPUs there.
Scenario stage_scenario_on_its_gpus(const Scenario& whole, int stages) {
  Scenario s = whole;
  s.parallelism = ParallelismRequest{};
  s.cluster = pipeline_stage_cluster(whole.cluster, stages);
  const int gpus = s.cluster.gpus();
  int& group = s.training.group_size;
  if (gpus % group != 0) {
    if (group % gpus != 0)
      throw MeshError("training.group_size", "group size " + std::to_string(group) +
                                                 " GPUs does not divide a pipeline stage's " +
                                                 std::to_string(gpus) + " GPUs, nor do they divide it");
    group = gpus;  // a group larger than the stage: the stage's GPUs
  }
  return s;
}

// The whole model sliced for `slice` on one stage's GPUs: what every stage's scenario is cut from.
Scenario stage_template(const Scenario& whole, int stages, const TensorSlice& slice) {
  Scenario s = stage_scenario_on_its_gpus(whole, stages);
  if (!slice.whole()) s = slice_scenario(s, slice);
  return s;
}

// One GPU's share of the network when `sending` consecutive GPUs of its node send at once, each over its
// rail's NIC: a NIC's rate shared by the sending GPUs on its rail (gpus_per_node / nics_per_node GPUs each).
double network_bytes_per_second(const Cluster& physical, int sending) {
  const NetworkTopology& net = physical.network;
  const double gpus_per_nic = static_cast<double>(physical.gpus_per_node) / net.nics_per_node;
  return net.nic_bytes_per_second / std::max(1.0, std::min<double>(sending, gpus_per_nic));
}

// One GPU's send from GPU `from` to GPU `to` of one node (each the first GPU of its stage), rank i of one
// stage to rank i of the other, every GPU of the stage sending at once: NVSwitch gives each its own port; on
// a PCIe tree the path's bottleneck is shared by the stage's GPUs that cross it (a switch uplink by its
// GPUs, the socket link by a socket's).
LinkProperties inside_node_boundary(const Cluster& physical, int stage_gpus, int from, int to) {
  const LinkClass path = link_class_between(physical, from, to);
  LinkProperties link = link_properties(physical, path);
  const PcieTopology& pcie = physical.pcie;
  int sharing = 1;
  if (path == LinkClass::cross_switch) sharing = std::min(stage_gpus, pcie.gpus_per_switch);
  if (path == LinkClass::cross_socket)
    sharing = std::min(stage_gpus, pcie.gpus_per_switch * pcie.switches_per_socket);
  link.bytes_per_second /= sharing;
  return link;
}

// One cut's activation (or its gradient) for a micro-batch: tokens x hidden in the compute precision, a
// 1 / T share under sequence parallelism (each TP rank holds and sends its part of the sequence).
double boundary_bytes(const Scenario& whole, const Scenario& tmpl, std::int64_t micro_batch, double hidden) {
  const double element = whole.training.precision == Precision::fp32 ? 4.0 : 2.0;
  double bytes =
      static_cast<double>(micro_batch) * static_cast<double>(tmpl.model.sequence_length) * hidden * element;
  if (tmpl.mesh.tensor.sequence_parallel) bytes /= tmpl.mesh.tensor.degree;
  return bytes;
}

// The send of `bytes` from a GPU of stage s to its counterpart on stage (s + 1) mod stages (and back), per
// boundary s, every GPU of the stage sending at once. Stages of whole nodes: over the network, every GPU of
// a node sending. Stages inside nodes: inside the node over the path between the two stages, or to the next
// node (the last stage of a node; the last stage to the first under the interleaved schedule), the stage's
// GPUs sharing their rails' NICs.
std::vector<double> send_seconds_per_boundary(const Scenario& whole, int stages, double bytes) {
  const Cluster& physical = whole.cluster;
  const int stage_gpus = physical.gpus() / stages;
  const auto network = [&](int sending) {
    return physical.network.latency_seconds + bytes / network_bytes_per_second(physical, sending);
  };
  if (physical.nodes % stages == 0)
    return std::vector<double>(static_cast<std::size_t>(stages), network(physical.gpus_per_node));
  const int per_node = stages / physical.nodes;
  std::vector<double> out;
  for (int s = 0; s < stages; ++s) {
    const int next = (s + 1) % stages;
    if (physical.nodes > 1 && next % per_node == 0) {
      out.push_back(network(stage_gpus));
      continue;
    }
    const LinkProperties inside = inside_node_boundary(physical, stage_gpus, (s % per_node) * stage_gpus,
                                                       (next % per_node) * stage_gpus);
    out.push_back(inside.latency_seconds + bytes / inside.bytes_per_second);
  }
  return out;
}

// The cut searched under a bound on its slowest step, which only skips stages that cannot win: the even
// cut's slowest step when it fits; else rising multiples of an even share of the compute until a cut is
// found under one (then its value, at most which the optimum is). Without a bound when a stage took less
// than its compute. False when no cut can fit (identical layers whose longest fitting stages fall short).
bool search_under_bounds(Partition& partition, int stages) {
  partition.bound_by_even_cut();
  const double total = partition.total_compute_seconds();
  if (partition.bound() == kInfinity) {
    if (!partition.find_longest_fitting()) return false;
    for (double bound = 1.1 * total / stages;; bound *= 1.25) {
      if (bound >= total) {
        partition.drop_bound();
        break;
      }
      partition.set_bound(bound);
      const double found = partition.best(0, 0).first;
      if (found == kInfinity) continue;
      if (found > bound) partition.set_bound(found);
      break;
    }
  }
  partition.cut(false);
  if (partition.bound_broken()) partition.drop_bound();
  return true;
}

// The min-max cut: by threshold for identical layers, else by the bounded search; without a cut that can
// fit, the even cut (which shows why).
std::vector<int> searched_cut(Partition& partition, int stages) {
  if (partition.uniform()) {
    std::optional<std::vector<int>> cut = partition.threshold_cut();
    return cut ? *cut : partition.cut(true);
  }
  return search_under_bounds(partition, stages) ? partition.cut(false) : partition.cut(true);
}

// The pipeline of `stages` at one micro-batch: the cut (`given`, layers per stage, instead of the search's
// when not null), each stage's plan and the schedule's figures; not planned (pruned) when its compute alone
// cannot beat `beat_tokens_per_second`.
PipelineOption pipeline_at(const Scenario& whole, const Scenario& tmpl, const PipelineSearch& search,
                           int stages, std::int64_t micro_batch, int micro_batches,
                           const Calibration& calibration, const PlanRequest& request,
                           const std::vector<int>* given = nullptr, double beat_tokens_per_second = 0) {
  Partition partition(tmpl, search, stages, micro_batch, micro_batches, calibration, request);
  PipelineOption o;
  o.stages = stages;
  o.slice = tmpl.mesh.tensor;
  o.micro_batch = micro_batch;
  o.micro_batches = micro_batches;
  o.data_parallel = tmpl.cluster.gpus();
  o.bubble_fraction = bubble_fraction(search.schedule, stages, search.virtual_stages, micro_batches);
  const double tokens = static_cast<double>(micro_batch) * micro_batches * o.data_parallel *
                        static_cast<double>(tmpl.model.sequence_length);
  // No cut beats the compute alone: every step at least its stage's compute, the slowest at least an even
  // share of it, each tail at least 0 (checked on every stage planned).
  const double v = search.schedule == PipelineSchedule::interleaved ? search.virtual_stages : 1;
  const double fastest_seconds =
      partition.total_compute_seconds() * (1 / v + (micro_batches - 1 / v) / stages);
  if (given == nullptr && beat_tokens_per_second > 0 &&
      tokens / (fastest_seconds * (1 - 1e-8)) <= beat_tokens_per_second) {
    o.pruned = true;
    return o;
  }
  const bool equal = search.schedule == PipelineSchedule::interleaved;
  const std::vector<int> lengths = given != nullptr       ? *given
                                   : equal || stages == 1 ? partition.cut(true)
                                                          : searched_cut(partition, stages);
  o.fits = true;
  double widest_cut = 0;
  std::vector<StageTiming> timings;
  int first = 0;
  for (int r = 0; r < stages; ++r) {
    const StageEval& e = partition.eval(r, first, lengths[static_cast<std::size_t>(r)]);
    PipelineStagePlan s;
    s.first_layer = first;
    s.layers = lengths[static_cast<std::size_t>(r)];
    s.embedding = r == 0;
    s.head = r == stages - 1;
    s.in_flight_micro_batches =
        in_flight_micro_batches(search.schedule, stages, search.virtual_stages, r, micro_batches);
    s.scenario = e.scenario;
    s.plan = e.plan;
    s.timing = e.timing;
    if (!e.plan.fits && o.fits) {
      o.fits = false;
      o.why_not = e.why_not;
    }
    o.peak_bytes = std::max(o.peak_bytes, e.plan.fits ? e.plan.plan.predicted.peak_memory_bytes : 0.0);
    timings.push_back(e.timing);
    first += s.layers;
    if (r + 1 < stages) widest_cut = std::max(widest_cut, layer_hidden_size(*tmpl.transformer, first - 1));
    if (equal) {  // interleaved: every chunk ends in a send
      for (int l = 0; l < tmpl.transformer->layers; ++l)
        widest_cut = std::max(widest_cut, layer_hidden_size(*tmpl.transformer, l));
    }
    o.stage_plans.push_back(std::move(s));
  }
  if (!o.fits && given == nullptr && !equal && stages > 1) o.why_not = partition.no_cut_text();
  o.stage_plans_made = partition.plans_made();
  o.bounds_hold = !partition.bound_broken();
  for (const StageTiming& t : timings) o.bounds_hold = o.bounds_hold && t.tail_seconds >= 0;
  if (!o.fits) return o;
  o.send_seconds.assign(static_cast<std::size_t>(stages), 0.0);
  if (stages > 1) {
    o.boundary_bytes = boundary_bytes(whole, tmpl, micro_batch, widest_cut);
    o.send_seconds = send_seconds_per_boundary(whole, stages, o.boundary_bytes);
  }
  o.iteration_seconds = schedule_pipeline(search, o).iteration_seconds;
  o.tokens_per_second = tokens / o.iteration_seconds;
  return o;
}

}  // namespace

double PipelineOption::boundary_seconds() const {
  return send_seconds.empty() ? 0.0 : *std::max_element(send_seconds.begin(), send_seconds.end());
}

std::vector<const PipelineOption*> fitting_pipelines(const PipelineSearch& search) {
  std::vector<const PipelineOption*> out;
  if (!search.any_fits()) return out;
  out.push_back(&search.options[search.best]);
  for (std::size_t i = 0; i < search.options.size(); ++i)
    if (i != search.best && search.options[i].fits) out.push_back(&search.options[i]);
  return out;
}

PlanPrediction pipeline_prediction(const PipelineOption& option) {
  PlanPrediction p;
  p.iteration_seconds = option.iteration_seconds;
  p.tokens_per_second = option.tokens_per_second;
  return p;
}

ScheduledPipeline schedule_pipeline(const PipelineSearch& search, const PipelineOption& option) {
  std::vector<StageDurations> durations;
  bool sends_block = false;
  for (const PipelineStagePlan& s : option.stage_plans) {
    durations.push_back(
        {s.timing.forward_seconds, s.timing.step_seconds - s.timing.forward_seconds, s.timing.tail_seconds});
    sends_block =
        sends_block || (s.scenario && s.scenario->scenario().execution.runtime.pipeline_sends_block);
  }
  return run_pipeline_schedule(search.schedule, search.virtual_stages, option.micro_batches, durations,
                               option.send_seconds,
                               sends_block ? PipelineSends::blocking : PipelineSends::asynchronous);
}

namespace {

// Why `stages` cannot cut `layers` (empty when they can); where the stages' GPUs cannot be placed,
// stage_scenario_on_its_gpus says.
std::string stage_count_refusal(const PipelineSearch& search, int stages, int layers) {
  if (layers < stages * search.virtual_stages)
    return std::to_string(layers) + " layers are fewer than " +
           std::to_string(stages * search.virtual_stages) +
           (search.virtual_stages > 1 ? " model chunks" : " stages");
  return "";
}

// Why micro-batch `micro_batches` cannot run `stages` under the schedule (empty when it can).
std::string micro_batches_refusal(const PipelineSearch& search, int stages, int micro_batches) {
  if (stages == 1 || search.schedule == PipelineSchedule::gpipe) return "";
  if (micro_batches < stages)
    return std::to_string(micro_batches) +
           (micro_batches == 1 ? " micro-batch per iteration is" : " micro-batches per iteration are") +
           " fewer than the " + std::to_string(stages) + " stages " +
           std::string(to_string(search.schedule)) +
           " needs (training.gradient_accumulation_steps or global_batch)";
  if (search.schedule == PipelineSchedule::interleaved && micro_batches % stages != 0)
    return "the interleaved schedule runs micro-batches in groups of the " + std::to_string(stages) +
           " stages; " + std::to_string(micro_batches) + " is not a multiple";
  return "";
}

// The best micro-batch of one stage count and slice: every micro-batch of the scenario's scan up to the first
// whose best cut does not fit.
PipelineOption best_micro_batch(const Scenario& whole, const Scenario& tmpl, const PipelineSearch& search,
                                int stages, const Calibration& calibration, const PlanRequest& request) {
  std::vector<std::int64_t> micro_batches;
  if (whole.training.micro_batch > 0) {
    micro_batches.push_back(whole.training.micro_batch);
  } else {
    for (std::int64_t b = 1; b <= whole.training.max_micro_batch; ++b) micro_batches.push_back(b);
  }
  PipelineOption best;
  best.stages = stages;
  best.slice = tmpl.mesh.tensor;
  best.data_parallel = tmpl.cluster.gpus();
  int plans_made = 0;
  bool bounds_hold = true;  // prune a micro-batch by its compute only while the bounds held for all planned
  for (std::int64_t b : micro_batches) {
    const int m = accumulation_steps_for(tmpl, b);
    if (m == 0) {
      if (tmpl.training.global_batch > 0 && b * tmpl.cluster.gpus() > tmpl.training.global_batch) break;
      continue;
    }
    if (const std::string why = micro_batches_refusal(search, stages, m); !why.empty()) {
      if (best.why_not.empty()) best.why_not = why;
      continue;
    }
    PipelineOption o = pipeline_at(whole, tmpl, search, stages, b, m, calibration, request, nullptr,
                                   best.fits && bounds_hold ? best.tokens_per_second : 0.0);
    if (o.pruned) continue;  // cannot beat the best: a larger micro-batch may still
    plans_made += o.stage_plans_made;
    bounds_hold = bounds_hold && o.bounds_hold;
    if (!o.fits) {
      if (!best.fits) best.why_not = o.why_not;
      break;  // a larger micro-batch holds more
    }
    if (!best.fits || o.tokens_per_second > best.tokens_per_second) best = std::move(o);
  }
  best.stage_plans_made = plans_made;
  return best;
}

// Every stage count that divides the nodes; on one node, every one that divides its GPUs (stages inside it).
std::vector<int> stage_counts(const Scenario& whole) {
  if (whole.parallelism.pipeline > 0) return {whole.parallelism.pipeline};
  const Cluster& c = whole.cluster;
  const int most = c.nodes == 1 ? c.gpus_per_node : c.nodes;
  std::vector<int> out;
  for (int p = 1; p <= most; ++p)
    if (most % p == 0) out.push_back(p);
  return out;
}

std::vector<TensorSlice> slices_for(const Scenario& tmpl_whole, std::vector<std::string>* refused) {
  const ParallelismRequest& asked = tmpl_whole.parallelism;
  if (asked.search()) return candidate_slices(tmpl_whole, refused);
  return {asked.slice()};
}

}  // namespace

bool PipelineSearch::any_fits() const {
  for (const PipelineOption& o : options)
    if (o.fits) return true;
  return false;
}

PipelineSearch search_pipelines(const Scenario& whole, const Calibration& calibration,
                                const PlanRequest& request) {
  if (!whole.transformer || whole.mesh.sliced())
    throw MeshError(
        "parallelism.pipeline",
        "pipeline stages cut a generated transformer's layers; give the model by its architecture "
        "(model: layers, hidden, heads, ...), not as a list of operators");
  if (whole.planner.cost_model != CostModelKind::topology)
    throw MeshError("parallelism.pipeline", "pipeline stages are priced by the topology cost model only");
  PipelineSearch out;
  out.schedule = whole.parallelism.schedule;
  out.virtual_stages = whole.parallelism.virtual_stages;
  const int layers = whole.transformer->layers;
  for (int stages : stage_counts(whole)) {
    const std::string label = "PP " + std::to_string(stages);
    Scenario per_stage;
    try {
      per_stage = stage_scenario_on_its_gpus(whole, stages);
    } catch (const MeshError& e) {
      out.refused.push_back(label + ": " + e.what());
      continue;
    }
    if (const std::string why = stage_count_refusal(out, stages, layers); !why.empty()) {
      out.refused.push_back(label + ": " + why);
      continue;
    }
    per_stage.parallelism = whole.parallelism;  // the mesh asked for, on the stage's GPUs
    std::vector<std::string> refused;
    for (const TensorSlice& slice : slices_for(per_stage, &refused)) {
      Scenario tmpl;
      try {
        tmpl = stage_template(whole, stages, slice);
      } catch (const MeshError& e) {
        refused.push_back(slice_text(slice) + ": " + e.what());
        continue;
      }
      out.options.push_back(best_micro_batch(whole, tmpl, out, stages, calibration, request));
    }
    for (const std::string& r : refused) out.refused.push_back(label + " x " + r);
  }
  if (out.options.empty()) {
    std::string reasons;
    for (const std::string& r : out.refused) reasons += (reasons.empty() ? "" : "; ") + r;
    throw MeshError("parallelism.pipeline", "no pipeline can be built: " + reasons);
  }
  double fastest = -1;
  for (std::size_t i = 0; i < out.options.size(); ++i) {
    if (out.options[i].fits && out.options[i].tokens_per_second > fastest) {
      fastest = out.options[i].tokens_per_second;
      out.best = i;
    }
  }
  return out;
}

PipelineOption pipeline_for_cut(const Scenario& whole, int stages, const TensorSlice& slice,
                                std::int64_t micro_batch, const std::vector<int>& layers,
                                const Calibration& calibration, const PlanRequest& request) {
  PipelineSearch search;
  search.schedule = whole.parallelism.schedule;
  search.virtual_stages = whole.parallelism.virtual_stages;
  const Scenario tmpl = stage_template(whole, stages, slice);
  int total = 0;
  for (int n : layers) total += n < 1 ? tmpl.transformer->layers + 1 : n;
  if (static_cast<int>(layers.size()) != stages || total != tmpl.transformer->layers)
    throw MeshError("parallelism.pipeline", "a cut gives each of the " + std::to_string(stages) +
                                                " stages at least one layer, " +
                                                std::to_string(tmpl.transformer->layers) + " in all");
  const int m = accumulation_steps_for(tmpl, micro_batch);
  if (m == 0) throw MeshError("training.global_batch", "the micro-batch does not divide the global batch");
  return pipeline_at(whole, tmpl, search, stages, micro_batch, m, calibration, request, &layers);
}

std::string pipeline_text(const PipelineSearch& search, const PipelineOption& option) {
  std::string text = "PP " + std::to_string(option.stages);
  if (option.stages > 1) {
    text += " (" + std::string(to_string(search.schedule));
    if (search.schedule == PipelineSchedule::interleaved)
      text += " v" + std::to_string(search.virtual_stages);
    text += ")";
  }
  const TensorSlice& s = option.slice;
  if (s.degree > 1 || s.sequence_parallel)
    text += " x " + slice_text(TensorSlice{s.degree, s.sequence_parallel, s.context});
  else if (s.context > 1)
    text += " x CP " + std::to_string(s.context);
  text += " x DP " + std::to_string(option.data_parallel / s.context);
  if (s.expert > 1) text += " with EP " + std::to_string(s.expert);
  text += " (" + std::to_string(option.stages * option.data_parallel * s.degree) + " GPUs)";
  return text;
}

}  // namespace shardscope

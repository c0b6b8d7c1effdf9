// JSON forms of plans and plan reports, and validated plan reading.
#include "planner/report/plan_json.hpp"

#include <algorithm>

#include "planner/core/digest.hpp"
#include "planner/core/error.hpp"
#include "planner/io/internal/json_reader.hpp"
#include "planner/io/text_file.hpp"
#include "planner/report/internal/plan_json_tree.hpp"
#include "planner/report/uncertainty.hpp"

namespace shardscope {
namespace {

using Json = nlohmann::ordered_json;

std::string scope_string(ShardScope s) { return to_string(s); }

ShardScope scope_from(const JsonObjectReader& reader, const std::string& key) {
  return *parse_name<ShardScope>(reader.choice(key, names<ShardScope>()));
}

Json operator_costs_json(const Plan& plan, const std::vector<OperatorCost>& costs) {
  Json out = Json::array();
  for (std::size_t i = 0; i < costs.size() && i < plan.operators.size(); ++i) {
    const ItemCost& c = costs[i].cost;
    const MemoryBreakdown& m = costs[i].memory;
    out.push_back({{"name", plan.operators[i].name},
                   {"seconds", c.seconds},
                   {"resident_bytes", c.resident_bytes},
                   {"transient_bytes", c.transient_bytes},
                   {"memory",
                    {{"parameter_bytes", m.parameter_bytes},
                     {"gradient_bytes", m.gradient_bytes},
                     {"optimizer_bytes", m.optimizer_bytes},
                     {"activation_bytes", m.activation_bytes},
                     {"gathered_bytes", m.gathered_bytes},
                     {"workspace_bytes", m.workspace_bytes}}}});
  }
  return out;
}

// The configuration fields added when plans began to record what they were made for.
const char* const kReplan =
    "missing; this plan file predates plans that record their configuration: re-plan with "
    "`shardscope plan SCENARIO --out PLAN.json`";

std::uint64_t digest_from(const JsonObjectReader& reader, const std::string& key) {
  if (!reader.has(key)) reader.fail(key, kReplan);
  std::uint64_t digest = 0;
  if (!reader.json().at(key).is_string() || !parse_digest(reader.json().at(key).get<std::string>(), digest)) {
    reader.fail(key, "expected 16 lower-case hex digits (as written by `shardscope plan --out`)");
  }
  return digest;
}

Json batches_json(const std::vector<BatchRow>& rows) {
  Json out = Json::array();
  for (const BatchRow& r : rows) {
    out.push_back({{"micro_batch", r.micro_batch},
                   {"gradient_accumulation_steps", r.gradient_accumulation_steps},
                   {"status", std::string(batch_status_name(r.status))},
                   {"iteration_seconds", r.iteration_seconds},
                   {"samples_per_second", r.samples_per_second},
                   {"peak_memory_bytes", r.peak_memory_bytes},
                   {"lower_bound_seconds", r.lower_bound_seconds}});
  }
  return out;
}

}  // namespace

Json plan_to_json(const Plan& plan) {
  Json out;
  out["strategy"] = plan.strategy;
  out["batch_size"] = plan.micro_batch;
  out["gradient_accumulation_steps"] = plan.gradient_accumulation_steps;
  out["group_size"] = plan.group_size;
  out["precision"] = to_string(plan.precision);
  out["sequence_length_tokens"] = plan.sequence_length_tokens;
  out["cost_model"] = to_string(plan.cost_model);
  out["collectives"] = to_string(plan.collectives);
  if (!plan.tensor.whole()) {  // only on a mesh: other plan files as they were
    out["mesh"] = {{"tensor", plan.tensor.degree},
                   {"sequence_parallel", plan.tensor.sequence_parallel},
                   {"context", plan.tensor.context}};
    if (plan.tensor.expert > 1) {
      out["mesh"]["expert"] = plan.tensor.expert;
      out["mesh"]["expert_imbalance"] = plan.tensor.expert_imbalance;
    }
  }
  out["model_digest"] = format_digest(plan.model_digest);
  out["scenario_digest"] = format_digest(plan.scenario_digest);
  out["calibration_digest"] = format_digest(plan.calibration_digest);
  out["operators"] = Json::array();
  for (const OperatorChoice& c : plan.operators) {
    out["operators"].push_back({{"name", c.name},
                                {"p_scope", scope_string(c.scopes.parameters)},
                                {"g_scope", scope_string(c.scopes.gradients)},
                                {"os_scope", scope_string(c.scopes.optimizer)},
                                {"secondary_parameter_partition", c.secondary_parameter_partition},
                                {"slices", c.slices},
                                {"sharded_slices", c.sharded_slices},
                                {"checkpoint", c.checkpoint}});
  }
  out["predicted"] = {{"iteration_seconds", plan.predicted.iteration_seconds},
                      {"samples_per_second", plan.predicted.samples_per_second},
                      {"tokens_per_second", plan.predicted.tokens_per_second},
                      {"peak_memory_bytes", plan.predicted.peak_memory_bytes}};
  return out;
}

// The throughput's uncertainty (uncertainty.hpp): its basis and, where rows were scored, their errors.
Json uncertainty_json(const Scenario& scenario, const ThroughputUncertainty& u) {
  Json out;
  out["basis"] = to_string(u.basis);
  if (u.published) {
    const PublishedError& e = *u.published;
    out["published"] = {{"runtime", to_string(scenario.execution.runtime.name)},
                        {"gpu", e.gpu},
                        {"held_out_rows", e.rows},
                        {"mape", e.mape},
                        {"bias", e.bias},
                        {"worst", e.worst},
                        {"parameters", {e.min_parameters, e.max_parameters}},
                        {"gpus", {e.min_gpus, e.max_gpus}},
                        {"pairs", e.pairs},
                        {"pair_sd", e.pair_sd},
                        {"memory_rows", e.memory_rows},
                        {"memory_mape", e.memory_mape}};
    out["tokens_per_second_low"] = u.low_tokens_per_second;
    out["tokens_per_second_high"] = u.high_tokens_per_second;
    if (!u.outside.empty()) out["outside"] = u.outside;
  }
  if (u.calibrated) {
    const CalibrationPredictionError& e = *u.calibrated;
    out["calibration"] = {{"file", scenario.planner.calibration_file},
                          {"rows", e.rows},
                          {"mape", e.mape},
                          {"bias", e.bias},
                          {"worst", e.worst},
                          {"scored_on", e.scored_on},
                          {"pairs", e.pairs},
                          {"pair_sd", e.pair_sd}};
    out["tokens_per_second_low"] = u.low_tokens_per_second;
    out["tokens_per_second_high"] = u.high_tokens_per_second;
  }
  // Peak memory's own flag: scored on published rows that measured it, or not.
  out["memory_basis"] = u.memory_rows > 0 ? "published" : "not scored";
  out["text"] = uncertainty_text(scenario, u);
  return out;
}

// Each collective's time per iteration and the part the compute stream waits for (exposure.hpp).
Json communication_json(const ProgramExposure& e) {
  Json rows = Json::array();
  for (const CollectiveExposure& r : e.rows) {
    rows.push_back({{"stage", to_string(r.stage)},
                    {"kind", to_string(r.kind)},
                    {"group", to_string(r.group)},
                    {"collectives", r.collectives},
                    {"seconds", r.seconds},
                    {"exposed_seconds", r.exposed_seconds}});
  }
  return {{"compute_seconds", e.compute_seconds},
          {"collective_seconds", e.collective_seconds()},
          {"exposed_seconds", e.exposed_seconds},
          {"collectives", rows}};
}

Json report_to_json(const PlanReport& report, const Scenario& scenario) {
  Json out;
  out["scenario"] = scenario.name;
  out["gpus"] = physical_gpus(scenario);
  if (scenario.mesh.sliced()) {  // only on a mesh: other reports stay as they were
    out["mesh"] = {{"tensor", scenario.mesh.tensor.degree},
                   {"sequence_parallel", scenario.mesh.tensor.sequence_parallel},
                   {"context", scenario.mesh.tensor.context},
                   {"data_parallel", scenario.cluster.gpus() / scenario.mesh.tensor.context}};
    if (scenario.mesh.tensor.expert > 1) out["mesh"]["expert"] = scenario.mesh.tensor.expert;
  }
  out["memory_limit_bytes"] = scenario.training.memory_limit_bytes;
  out["fits"] = report.best.fits;
  const ThroughputUncertainty uncertainty = throughput_uncertainty(
      scenario, report.best.plan.predicted.tokens_per_second, report.calibration_error);
  if (report.best.fits) {
    out["plan"] = plan_to_json(report.best.plan);
    out["operator_costs"] = operator_costs_json(report.best.plan, report.best.operator_costs);
    out["uncertainty"] = uncertainty_json(scenario, uncertainty);
    // plan.predicted.peak_memory_bytes is the reserved peak (runtime reserve and every gradient held).
    if (report.best.allocated_peak_bytes > 0)
      out["allocated_peak_memory_bytes"] = report.best.allocated_peak_bytes;
    if (!report.best.communication.rows.empty())
      out["communication"] = communication_json(report.best.communication);
    // The search's certificate is of its own objective (operators priced as if their neighbours chose alike).
    const double ub = report.best.search_seconds;
    const double lb = report.best.lower_bound_seconds;
    out["optimality"] = {{"search_objective_seconds", ub},
                         {"lower_bound_seconds", lb},
                         {"gap", ub > 0 ? (ub - lb) / ub : 0.0}};
    if (!report.best.adopted_from.empty()) {
      out["adopted_from"] = report.best.adopted_from;
      out["search_pick"] = {{"iteration_seconds", report.best.search_pick.iteration_seconds},
                            {"samples_per_second", report.best.search_pick.samples_per_second}};
    }
  } else {
    out["minimum_memory_bytes"] = report.best.minimum_memory_bytes;
    out["shortfall_bytes"] = report.best.shortfall_bytes;
  }
  out["batch_sizes"] = batches_json(report.best.batches);
  out["batch_policy"] = to_string(report.batch_policy);
  out["baselines"] = Json::array();
  for (const StrategyResult& b : report.baselines) {
    Json row;
    row["strategy"] = b.strategy;
    row["fits"] = b.fits;
    row["collectives"] = to_string(b.fits ? b.plan.collectives : scenario_collectives(scenario));
    // Not fitting: the micro-batch its shortfall is measured at (the first its scan tried).
    row["batch_size"] = b.fits ? b.plan.micro_batch : b.batches.empty() ? 0 : b.batches.front().micro_batch;
    row["gradient_accumulation_steps"] = b.fits              ? b.plan.gradient_accumulation_steps
                                         : b.batches.empty() ? 0
                                                             : b.batches.front().gradient_accumulation_steps;
    row["iteration_seconds"] = b.fits ? b.plan.predicted.iteration_seconds : 0.0;
    row["samples_per_second"] = b.fits ? b.plan.predicted.samples_per_second : 0.0;
    row["peak_memory_bytes"] = b.fits ? b.plan.predicted.peak_memory_bytes : b.minimum_memory_bytes;
    row["shortfall_bytes"] = b.fits ? 0.0 : b.shortfall_bytes;
    if (b.fits && b.allocated_peak_bytes > 0) row["allocated_peak_memory_bytes"] = b.allocated_peak_bytes;
    if (b.fits && !b.communication.rows.empty()) row["communication"] = communication_json(b.communication);
    if (b.fits && report.best.fits) {
      const std::optional<double> p = probability_faster(
          uncertainty, report.best.plan.predicted.samples_per_second, b.plan.predicted.samples_per_second);
      if (p) row["plan_faster_probability"] = *p;
    }
    out["baselines"].push_back(row);
  }
  out["pareto"] = Json::array();
  for (const ParetoPoint& p : report.pareto) {
    out["pareto"].push_back({{"peak_memory_bytes", p.peak_bytes}, {"iteration_seconds", p.seconds}});
  }
  return out;
}

Plan plan_from_json_string(const std::string& text, const std::string& file, const Model& model) {
  const JsonDocument document(text, file);
  const bool report = document.root().is_object() && document.root().contains("plan");
  const JsonObjectReader p(document, report ? "/plan" : "", "plan.");
  p.reject_unknown({"strategy", "batch_size", "gradient_accumulation_steps", "group_size", "precision",
                    "sequence_length_tokens", "cost_model", "collectives", "mesh", "model_digest",
                    "scenario_digest", "calibration_digest", "operators", "predicted"},
                   "unknown key in a plan");
  Plan plan;
  plan.source.file = file;
  for (auto it = p.json().begin(); it != p.json().end(); ++it) plan.source.lines[it.key()] = p.line(it.key());
  plan.strategy = p.name("strategy");
  plan.micro_batch = p.integer("batch_size", 1, 1 << 20);
  plan.gradient_accumulation_steps =
      static_cast<int>(p.integer("gradient_accumulation_steps", 1, kMaxAccumulationSteps));
  plan.group_size = static_cast<int>(p.integer("group_size", 1, 1 << 20));
  for (const char* key : {"precision", "sequence_length_tokens", "cost_model"}) {
    if (!p.has(key)) p.fail(key, kReplan);
  }
  const std::string precision = p.choice("precision", {"fp32", "mixed-bf16", "mixed-fp16"});
  plan.precision = precision == "fp32"         ? Precision::fp32
                   : precision == "mixed-fp16" ? Precision::mixed_fp16
                                               : Precision::mixed_bf16;
  plan.sequence_length_tokens = p.integer("sequence_length_tokens", 1, std::int64_t{1} << 40);
  plan.cost_model = p.choice("cost_model", {"topology", "paper"}) == "paper" ? CostModelKind::paper
                                                                             : CostModelKind::topology;
  // Plans written before the key existed ran rings.
  if (p.has("collectives"))
    plan.collectives =
        p.choice("collectives", {"ring", "nccl"}) == "nccl" ? CollectiveModel::nccl : CollectiveModel::ring;
  if (p.has("mesh")) {
    const JsonObjectReader t = p.object("mesh");
    t.reject_unknown({"tensor", "sequence_parallel", "context", "expert", "expert_imbalance"},
                     "unknown key in a plan's mesh");
    plan.tensor.degree = static_cast<int>(t.integer("tensor", 1, kMaxGpusPerNode));
    plan.tensor.sequence_parallel = t.boolean("sequence_parallel");
    plan.tensor.context = static_cast<int>(t.integer("context", 1, kMaxGpusPerNode));
    if (t.has("expert")) plan.tensor.expert = static_cast<int>(t.integer("expert", 1, 4096));
    plan.tensor.expert_imbalance = t.number_or("expert_imbalance", 1.0);
    if (!(plan.tensor.expert_imbalance >= 1 && plan.tensor.expert_imbalance <= 64))
      t.fail("expert_imbalance", "expected a factor between 1 and 64");
  }
  plan.model_digest = digest_from(p, "model_digest");
  plan.scenario_digest = digest_from(p, "scenario_digest");
  plan.calibration_digest = digest_from(p, "calibration_digest");
  const std::size_t count = p.list_size("operators");
  if (count != model.operators.size()) {
    p.fail("operators", "the plan has " + std::to_string(count) + " operators but the model has " +
                            std::to_string(model.operators.size()));
  }
  for (std::size_t i = 0; i < count; ++i) {
    const JsonObjectReader o = p.list_object("operators", i);
    o.reject_unknown({"name", "p_scope", "g_scope", "os_scope", "secondary_parameter_partition", "slices",
                      "sharded_slices", "checkpoint"},
                     "unknown key in a plan operator");
    const std::string at = "operators[" + std::to_string(i) + "].";
    for (auto it = o.json().begin(); it != o.json().end(); ++it)
      plan.source.lines[at + it.key()] = o.line(it.key());
    OperatorChoice c;
    c.name = o.name("name");
    if (c.name != model.operators[i].name) {
      o.fail("name", "expected operator '" + model.operators[i].name + "', got '" + c.name + "'");
    }
    c.scopes.parameters = scope_from(o, "p_scope");
    c.scopes.gradients = scope_from(o, "g_scope");
    c.scopes.optimizer = scope_from(o, "os_scope");
    c.slices = static_cast<int>(o.integer("slices", 1, 64));
    c.sharded_slices = static_cast<int>(o.integer("sharded_slices", 0, c.slices));
    c.checkpoint = o.boolean("checkpoint");
    c.secondary_parameter_partition = o.boolean_or("secondary_parameter_partition", false);
    plan.operators.push_back(c);
  }
  return plan;
}

std::string plan_json_text(const Plan& plan) { return plan_to_json(plan).dump(2); }

Plan load_plan_file(const std::string& path, const Model& model) {
  return plan_from_json_string(read_text_file(path, "plan"), path, model);
}

}  // namespace shardscope

// JSON forms of plans and plan reports, and validated plan reading.
#include "planner/io/plan_json.hpp"

#include <algorithm>

#include "planner/core/error.hpp"
#include "planner/io/yaml_reader.hpp"

namespace shardscope {
namespace {

using Json = nlohmann::ordered_json;

std::string scope_string(ShardScope s) { return to_string(s); }

ShardScope scope_from(const Json& v, const std::string& file, const std::string& field) {
  const std::string expected = "expected one of " + join(names<ShardScope>());
  if (!v.is_string()) throw InputError(file, 0, field, expected);
  const std::string s = v.get<std::string>();
  if (const auto scope = parse_name<ShardScope>(s)) return *scope;
  throw InputError(file, 0, field, expected + ", got \"" + s + "\"");
}

Json batches_json(const std::vector<BatchRow>& rows) {
  Json out = Json::array();
  for (const BatchRow& r : rows) {
    out.push_back({{"micro_batch", r.micro_batch},
                   {"gradient_accumulation_steps", r.gradient_accumulation_steps},
                   {"status", r.status},
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

Json report_to_json(const PlanReport& report, const Scenario& scenario) {
  Json out;
  out["scenario"] = scenario.name;
  out["gpus"] = scenario.cluster.gpus();
  out["memory_limit_bytes"] = scenario.training.memory_limit_bytes;
  out["fits"] = report.best.fits;
  if (report.best.fits) {
    out["plan"] = plan_to_json(report.best.plan);
    const double ub = report.best.plan.predicted.iteration_seconds;
    const double lb = report.best.lower_bound_seconds;
    out["optimality"] = {
        {"lower_bound_seconds", lb}, {"upper_bound_seconds", ub}, {"gap", ub > 0 ? (ub - lb) / ub : 0.0}};
  } else {
    out["minimum_memory_bytes"] = report.best.minimum_memory_bytes;
    out["shortfall_bytes"] = report.best.shortfall_bytes;
  }
  out["batch_sizes"] = batches_json(report.best.batches);
  out["baselines"] = Json::array();
  for (const StrategyResult& b : report.baselines) {
    Json row;
    row["strategy"] = b.strategy;
    row["fits"] = b.fits;
    row["batch_size"] = b.fits ? b.plan.micro_batch : 0;
    row["iteration_seconds"] = b.fits ? b.plan.predicted.iteration_seconds : 0.0;
    row["samples_per_second"] = b.fits ? b.plan.predicted.samples_per_second : 0.0;
    row["peak_memory_bytes"] = b.fits ? b.plan.predicted.peak_memory_bytes : b.minimum_memory_bytes;
    row["shortfall_bytes"] = b.fits ? 0.0 : b.shortfall_bytes;
    out["baselines"].push_back(row);
  }
  out["pareto"] = Json::array();
  for (const ParetoPoint& p : report.pareto) {
    out["pareto"].push_back({{"peak_memory_bytes", p.peak_bytes}, {"iteration_seconds", p.seconds}});
  }
  return out;
}

Plan plan_from_json_string(const std::string& text, const std::string& file, const Model& model) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw InputError(file, 0, "", std::string("malformed JSON: ") + e.what());
  }
  const nlohmann::json& p = json.contains("plan") ? json.at("plan") : json;
  auto need = [&](const nlohmann::json& obj, const std::string& key,
                  const std::string& field) -> const nlohmann::json& {
    if (!obj.is_object() || !obj.contains(key)) throw InputError(file, 0, field, "missing");
    return obj.at(key);
  };
  auto integer = [&](const nlohmann::json& v, const std::string& field, std::int64_t min, std::int64_t max) {
    if (!v.is_number_integer()) throw InputError(file, 0, field, "expected an integer");
    const std::int64_t x = v.get<std::int64_t>();
    if (x < min || x > max) {
      throw InputError(file, 0, field,
                       "expected an integer between " + std::to_string(min) + " and " + std::to_string(max));
    }
    return x;
  };
  Plan plan;
  const auto& strategy = need(p, "strategy", "plan.strategy");
  plan.strategy = strategy.is_string() ? strategy.get<std::string>() : "";
  plan.micro_batch = integer(need(p, "batch_size", "plan.batch_size"), "plan.batch_size", 1, 1 << 20);
  plan.gradient_accumulation_steps =
      static_cast<int>(integer(need(p, "gradient_accumulation_steps", "plan.gradient_accumulation_steps"),
                               "plan.gradient_accumulation_steps", 1, 1 << 20));
  plan.group_size =
      static_cast<int>(integer(need(p, "group_size", "plan.group_size"), "plan.group_size", 1, 1 << 20));
  const auto& ops = need(p, "operators", "plan.operators");
  if (!ops.is_array()) throw InputError(file, 0, "plan.operators", "expected a list");
  if (ops.size() != model.operators.size()) {
    throw InputError(file, 0, "plan.operators",
                     "the plan has " + std::to_string(ops.size()) + " operators but the model has " +
                         std::to_string(model.operators.size()));
  }
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const std::string f = "plan.operators[" + std::to_string(i) + "]";
    const auto& o = ops[i];
    OperatorChoice c;
    const auto& name = need(o, "name", f + ".name");
    c.name = name.is_string() ? name.get<std::string>() : "";
    if (c.name != model.operators[i].name) {
      throw InputError(file, 0, f + ".name",
                       "expected operator '" + model.operators[i].name + "', got '" + c.name + "'");
    }
    c.scopes.parameters = scope_from(need(o, "p_scope", f + ".p_scope"), file, f + ".p_scope");
    c.scopes.gradients = scope_from(need(o, "g_scope", f + ".g_scope"), file, f + ".g_scope");
    c.scopes.optimizer = scope_from(need(o, "os_scope", f + ".os_scope"), file, f + ".os_scope");
    c.slices = static_cast<int>(integer(need(o, "slices", f + ".slices"), f + ".slices", 1, 64));
    c.sharded_slices = static_cast<int>(
        integer(need(o, "sharded_slices", f + ".sharded_slices"), f + ".sharded_slices", 0, c.slices));
    const auto& ckpt = need(o, "checkpoint", f + ".checkpoint");
    if (!ckpt.is_boolean()) throw InputError(file, 0, f + ".checkpoint", "expected true or false");
    c.checkpoint = ckpt.get<bool>();
    if (o.contains("secondary_parameter_partition") && o.at("secondary_parameter_partition").is_boolean()) {
      c.secondary_parameter_partition = o.at("secondary_parameter_partition").get<bool>();
    }
    plan.operators.push_back(c);
  }
  return plan;
}

Plan load_plan_file(const std::string& path, const Model& model) {
  return plan_from_json_string(read_text_file(path, "plan"), path, model);
}

}  // namespace shardscope

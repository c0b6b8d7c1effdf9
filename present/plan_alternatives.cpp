// The alternatives table of `plan --top K` and the differences between two plans of one model.
#include "present/plan_alternatives.hpp"

#include "planner/core/units.hpp"
#include "planner/search/candidates.hpp"
#include "present/operator_rows.hpp"
#include "present/plan_text.hpp"
#include "present/text_table.hpp"

namespace shardscope::present {
namespace {

std::string signed_percent(double value) { return (value >= 0 ? "+" : "") + fixed(value, 2) + " %"; }

}  // namespace

std::string plan_difference(const Plan& plan, const Plan& reference) {
  std::vector<std::string> parts;
  if (plan.micro_batch != reference.micro_batch ||
      plan.gradient_accumulation_steps != reference.gradient_accumulation_steps) {
    parts.push_back("micro-batch " + std::to_string(plan.micro_batch) + " x " +
                    std::to_string(plan.gradient_accumulation_steps));
  }
  int sharding = 0, more_checkpointed = 0, fewer_checkpointed = 0;
  std::string examples, first_more, first_fewer;
  const std::size_t n = std::min(plan.operators.size(), reference.operators.size());
  for (std::size_t i = 0; i < n; ++i) {
    const OperatorChoice& a = plan.operators[i];
    const OperatorChoice& b = reference.operators[i];
    const std::string now = choice_text(a), before = choice_text(b);
    if (now != before) {
      if (++sharding <= 2)
        examples += std::string(examples.empty() ? "" : ", ") + a.name + " " + before + " -> " + now;
    }
    if (a.checkpoint && !b.checkpoint && ++more_checkpointed == 1) first_more = a.name;
    if (!a.checkpoint && b.checkpoint && ++fewer_checkpointed == 1) first_fewer = a.name;
  }
  if (sharding > 0) {
    parts.push_back("sharding of " + std::to_string(sharding) + " operator" + (sharding == 1 ? "" : "s") +
                    " (" + examples + (sharding > 2 ? ", ..." : "") + ")");
  }
  const auto checkpoints = [&](int count, const std::string& first, const char* what) {
    if (count > 0)
      parts.push_back(std::to_string(count) + what + " (" + first + (count > 1 ? ", ..." : "") + ")");
  };
  checkpoints(more_checkpointed, first_more, " more checkpointed");
  checkpoints(fewer_checkpointed, first_fewer, " fewer checkpointed");
  if (parts.empty()) return "the same choices";
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

std::vector<const Plan*> alternatives(const PlanReport& report, std::size_t top) {
  std::vector<const Plan*> out;
  for (const Plan& candidate : report.candidates) {
    if (out.size() >= top) break;
    if (report.best.fits && same_plan_choices(candidate, report.best.plan)) continue;
    out.push_back(&candidate);
  }
  return out;
}

void write_alternatives(std::ostream& os, const PlanReport& report, std::size_t top) {
  if (!report.best.fits) return;
  const Plan& best = report.best.plan;
  const std::vector<const Plan*> shown = alternatives(report, top);
  os << "\nThe " << shown.size() << " fastest other plans (distinct choices; each priced as the plan is)\n\n";
  TextTable table({"#", "from", "batch", "iteration", "samples/s", "vs plan", "peak memory"});
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const Plan& p = *shown[i];
    table.add(
        {std::to_string(i + 1), p.strategy,
         std::to_string(p.micro_batch) + " x " + std::to_string(p.gradient_accumulation_steps),
         units::format_duration(p.predicted.iteration_seconds), fixed(p.predicted.samples_per_second, 2),
         signed_percent(100.0 * (p.predicted.samples_per_second / best.predicted.samples_per_second - 1)),
         units::format_bytes(p.predicted.peak_memory_bytes)});
  }
  table.print(os);
  os << "\nWhat sets each apart from the plan:\n";
  for (std::size_t i = 0; i < shown.size(); ++i)
    os << "  " << i + 1 << ". " << plan_difference(*shown[i], best) << "\n";
}

}  // namespace shardscope::present

// The summary rows, the message, and the operator lines of Compare A/B.
#include "present/compare_rows.hpp"

#include <cmath>

#include "planner/core/units.hpp"
#include "present/operator_rows.hpp"
#include "present/plan_text.hpp"

namespace shardscope::present {
namespace {

using units::format_bytes;
using units::format_duration;

std::string sign_of(double d) { return d > 0 ? "+" : d < 0 ? "−" : "±"; }
std::string percent_suffix(double b, double a) { return a == 0 ? "" : " (" + percent_change(b, a) + ")"; }

std::string batch_text(const PlanSnapshot& s) {
  if (!s.fits) return "no plan fits";
  return std::to_string(s.plan.micro_batch) + " × " + std::to_string(s.plan.gradient_accumulation_steps) +
         " steps × " + std::to_string(s.scenario.cluster.gpus()) +
         " GPUs = " + std::to_string(s.global_batch());
}

std::string pins_text(const PlanSnapshot& s) {
  if (s.pins.empty()) return "none";
  std::string text = std::to_string(s.pins.size()) + " pinned operator" + (s.pins.size() == 1 ? "" : "s");
  if (s.fits && s.unpinned)
    text +=
        " (throughput " + pins_cost(s.plan.predicted, *s.unpinned).throughput + " against the unpinned plan)";
  return text;
}

std::string model_text(const PlanSnapshot& s) {
  return s.scenario.model.name + " (" + std::to_string(s.scenario.model.operators.size()) + " operators)";
}

std::string gpus_text(const PlanSnapshot& s) {
  return std::to_string(physical_gpus(s.scenario)) + " × " + s.scenario.cluster.gpu.name;
}

std::string peak_text(const PlanSnapshot& s) {
  if (s.fits) return format_bytes(s.plan.predicted.peak_memory_bytes);
  return "needs " + format_bytes(s.minimum_memory_bytes) + " (short " + format_bytes(s.shortfall_bytes) + ")";
}

int better(double d, bool higher_is_better) { return d == 0 ? 0 : ((d > 0) == higher_is_better ? 1 : -1); }

// Throughput, iteration time and peak memory of two fitting plans, with B − A.
void add_prediction_rows(const PlanPrediction& pa, const PlanPrediction& pb,
                         std::vector<CompareSummaryRow>& out) {
  const double dt = pb.samples_per_second - pa.samples_per_second;
  out.push_back({"throughput (samples/s)", fixed(pa.samples_per_second, 2), fixed(pb.samples_per_second, 2),
                 dt == 0 ? "same"
                         : sign_of(dt) + fixed(std::abs(dt), 2) +
                               percent_suffix(pb.samples_per_second, pa.samples_per_second),
                 dt != 0, better(dt, true)});
  const double di = pb.iteration_seconds - pa.iteration_seconds;
  out.push_back(
      {"iteration time", format_duration(pa.iteration_seconds), format_duration(pb.iteration_seconds),
       di == 0 ? "same" : signed_duration(di) + percent_suffix(pb.iteration_seconds, pa.iteration_seconds),
       di != 0, 0});
  const double dm = pb.peak_memory_bytes - pa.peak_memory_bytes;
  out.push_back(
      {"peak memory per GPU", format_bytes(pa.peak_memory_bytes), format_bytes(pb.peak_memory_bytes),
       dm == 0 ? "same" : signed_bytes(dm) + percent_suffix(pb.peak_memory_bytes, pa.peak_memory_bytes),
       dm != 0, better(dm, false)});
}

std::string side_label(const PlanSnapshot& s) { return s.label == "plan" ? "plan" : "baseline " + s.label; }

}  // namespace

std::string signed_bytes(double d) { return sign_of(d) + format_bytes(std::abs(d)); }
std::string signed_duration(double d) { return sign_of(d) + format_duration(std::abs(d)); }

std::vector<CompareSummaryRow> compare_summary_rows(const PlanSnapshot& a, const PlanSnapshot& b,
                                                    const PlanComparison& c) {
  std::vector<CompareSummaryRow> out;
  const auto text_row = [&](const std::string& metric, const std::string& va, const std::string& vb) {
    out.push_back({metric, va, vb, {}, va != vb, 0});
  };
  text_row("scenario", a.scenario.name, b.scenario.name);
  text_row("model", model_text(a), model_text(b));
  text_row("GPUs", gpus_text(a), gpus_text(b));
  text_row("memory limit per GPU", format_bytes(static_cast<double>(a.scenario.training.memory_limit_bytes)),
           format_bytes(static_cast<double>(b.scenario.training.memory_limit_bytes)));
  text_row("pins", pins_text(a), pins_text(b));
  text_row("strategy", a.fits ? a.plan.strategy : a.label, b.fits ? b.plan.strategy : b.label);
  text_row("batch", batch_text(a), batch_text(b));
  if (a.fits && b.fits) {
    add_prediction_rows(a.plan.predicted, b.plan.predicted, out);
  } else {
    text_row("peak memory per GPU", peak_text(a), peak_text(b));
  }
  if (c.models_differ.empty() && c.both_fit) {
    out.push_back({"operators with another choice", "", "",
                   std::to_string(c.choices_changed()) + " of " + std::to_string(c.operators.size()),
                   c.choices_changed() > 0, 0});
  }
  return out;
}

std::string compare_message(const std::optional<PlanSnapshot>& a, const std::optional<PlanSnapshot>& b,
                            const PlanComparison& c) {
  if (!a) {
    return "No plan A yet: \"Keep as A\" (Ctrl+K) freezes the plan shown now; then change the scenario or "
           "the "
           "pins and compare the new plan (B) with it here.";
  }
  if (!b) return "No plan B: the planner has not shown a plan since A was kept.";
  if (!c.models_differ.empty()) return c.models_differ;
  if (c.both_fit) return {};
  if (!a->fits && !b->fits) return "Neither plan fits its memory limit: no operator choices to compare.";
  return std::string("Plan ") + (!a->fits ? "A" : "B") +
         " does not fit its memory limit, so there are no operator choices to compare.";
}

std::string compare_title(const std::optional<PlanSnapshot>& a, const std::optional<PlanSnapshot>& b) {
  std::string title = "Compare A/B";
  if (a) title += " — A: the " + side_label(*a) + " kept";
  if (b) title += ", B: the " + side_label(*b) + " shown now";
  return title;
}

CompareLines compare_lines(const PlanComparison& c, bool only_changed) {
  CompareLines out;
  const std::vector<OperatorDifference>& ops = c.operators;
  for (std::size_t i = 0; i < ops.size();) {
    if (only_changed) {
      if (ops[i].choice_differs()) {
        out.lines.push_back({i, i});
      } else {
        ++out.hidden;
      }
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < ops.size() && !ops[end].any_difference()) ++end;
    if (end - i >= kFoldRun) {
      out.lines.push_back({i, end - 1});
      i = end;
    } else {
      out.lines.push_back({i, i});
      ++i;
    }
  }
  return out;
}

std::array<std::string, kCompareColumns> compare_table_header() {
  return {"operator", "choice A", "choice B", "ckpt A", "ckpt B", "memory A",
          "memory B", "Δ memory", "time A",   "time B", "Δ time"};
}

std::array<std::string, kCompareColumns> compare_row_cells(const OperatorDifference& d) {
  return {d.name,
          choice_text(d.a),
          choice_text(d.b),
          yes_no(d.a.checkpoint),
          yes_no(d.b.checkpoint),
          format_bytes(d.memory_a_bytes),
          format_bytes(d.memory_b_bytes),
          d.memory_differs ? signed_bytes(d.memory_b_bytes - d.memory_a_bytes) : "",
          format_duration(d.seconds_a),
          format_duration(d.seconds_b),
          d.time_differs ? signed_duration(d.seconds_b - d.seconds_a) : ""};
}

std::array<bool, kCompareColumns> compare_row_differs(const OperatorDifference& d) {
  const bool choice = d.scopes_differ || d.slices_differ;
  return {d.choice_differs(),
          choice,
          choice,
          d.checkpoint_differs,
          d.checkpoint_differs,
          d.memory_differs,
          d.memory_differs,
          false,
          d.time_differs,
          d.time_differs,
          false};
}

std::string folded_line_text(const PlanComparison& c, const CompareLine& line) {
  return c.operators[line.first].name + " .. " + c.operators[line.last].name + ": " +
         std::to_string(line.last - line.first + 1) + " operators with the same choice, memory and time";
}

std::string hidden_text(std::size_t hidden) {
  return std::to_string(hidden) + " operator" + (hidden == 1 ? "" : "s") + " with the same choice not shown";
}

}  // namespace shardscope::present

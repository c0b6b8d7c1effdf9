// Compare A/B as rows: the summary (scenario, model, GPUs, limit, pins, strategy, batch, throughput,
// iteration time, peak memory: A, B, B − A), the message that stands instead of the operator table, and the
// operator lines (one per operator, runs of identical ones folded, or only those whose choice differs).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include "present/plan_compare.hpp"

namespace shardscope::present {

struct CompareSummaryRow {
  std::string metric, a, b, delta;
  bool differs = false;
  int better = 0;  // +1: B is better, -1: B is worse, 0: neither
};

// The summary rows of A against B (their comparison `c` = compare_plans(a, b)).
std::vector<CompareSummaryRow> compare_summary_rows(const PlanSnapshot& a, const PlanSnapshot& b,
                                                    const PlanComparison& c);

// What stands instead of the operator table (no A, no B, different models, a plan that does not fit); empty
// when the table is shown.
std::string compare_message(const std::optional<PlanSnapshot>& a, const std::optional<PlanSnapshot>& b,
                            const PlanComparison& c);

// "Compare A/B — A: the plan kept, B: the baseline fsdp shown now".
std::string compare_title(const std::optional<PlanSnapshot>& a, const std::optional<PlanSnapshot>& b);

// One line of the operator table: an operator (first == last) or a folded run of identical ones.
struct CompareLine {
  std::size_t first = 0;  // index into PlanComparison::operators
  std::size_t last = 0;
  bool folded() const { return first != last; }
};
constexpr std::size_t kFoldRun = 3;  // runs of this many operators without a difference or more are folded

struct CompareLines {
  std::vector<CompareLine> lines;
  std::size_t hidden = 0;  // operators left out (only_changed)
};
// Every operator, runs of kFoldRun or more without any difference folded; with `only_changed`, only the
// operators whose choice differs (the others counted in `hidden`).
CompareLines compare_lines(const PlanComparison& c, bool only_changed);

constexpr std::size_t kCompareColumns = 11;
// "operator", "choice A", "choice B", "ckpt A", "ckpt B", "memory A", "memory B", "Δ memory", "time A",
// "time B", "Δ time".
std::array<std::string, kCompareColumns> compare_table_header();
std::array<std::string, kCompareColumns> compare_row_cells(const OperatorDifference& d);
// Which cells of an operator's row differ between A and B (drawn strong).
std::array<bool, kCompareColumns> compare_row_differs(const OperatorDifference& d);
// "layer1.mlp .. layer46.mlp: 46 operators with the same choice, memory and time"
std::string folded_line_text(const PlanComparison& c, const CompareLine& line);
// "3 operators with the same choice not shown"
std::string hidden_text(std::size_t hidden);

// Signed quantities as the comparison shows them: "+1.00 GiB", "−12.000 ms", "±0 B".
std::string signed_bytes(double delta_bytes);
std::string signed_duration(double delta_seconds);

}  // namespace shardscope::present

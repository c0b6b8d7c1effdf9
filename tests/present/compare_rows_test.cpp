// Compare A/B's rows from the presentation library: summary rows and their deltas, the messages, folded
// operator lines, the cells of a changed operator, percent changes and what pins cost.
#include "present/compare_rows.hpp"

#include <gtest/gtest.h>

#include "tests/present/plan_fixture.hpp"

namespace shardscope::present {
namespace {

PlanSnapshot default_snapshot() {
  const auto& p = testing::default_plan();
  return *snapshot_of(p.scenario, {}, p.report, "plan");
}

const CompareSummaryRow& row(const std::vector<CompareSummaryRow>& rows, const std::string& metric) {
  for (const CompareSummaryRow& r : rows) {
    if (r.metric == metric) return r;
  }
  throw std::runtime_error("no summary row " + metric);
}

TEST(CompareRows, SamePlanHasNoDifferenceAndFoldsItsRuns) {
  const PlanSnapshot a = default_snapshot();
  const PlanComparison c = compare_plans(a, a);
  const std::vector<CompareSummaryRow> rows = compare_summary_rows(a, a, c);
  EXPECT_EQ(row(rows, "batch").a, "6 × 1 steps × 8 GPUs = 48");
  EXPECT_EQ(row(rows, "throughput (samples/s)").delta, "same");
  EXPECT_EQ(row(rows, "operators with another choice").delta, "0 of 98");
  for (const CompareSummaryRow& r : rows) EXPECT_FALSE(r.differs) << r.metric;
  EXPECT_EQ(compare_message(a, a, c), "");
  const CompareLines lines = compare_lines(c, false);
  ASSERT_EQ(lines.lines.size(), 1u);  // all 98 operators identical: one folded run
  EXPECT_EQ(folded_line_text(c, lines.lines[0]),
            "embedding .. head: 98 operators with the same choice, memory and time");
  const CompareLines changed = compare_lines(c, true);
  EXPECT_TRUE(changed.lines.empty());
  EXPECT_EQ(changed.hidden, 98u);
  EXPECT_EQ(hidden_text(changed.hidden), "98 operators with the same choice not shown");
  EXPECT_EQ(hidden_text(1), "1 operator with the same choice not shown");
}

TEST(CompareRows, ChangedOperatorShowsItsCellsAndBreaksTheRun) {
  const PlanSnapshot a = default_snapshot();
  PlanSnapshot b = a;
  b.plan.operators[5].checkpoint = !b.plan.operators[5].checkpoint;
  b.operator_costs[5].cost.resident_bytes += 1024.0 * 1024.0;
  b.plan.micro_batch = 64;
  b.plan.gradient_accumulation_steps = 2;
  b.plan.predicted.samples_per_second = a.plan.predicted.samples_per_second * 0.9996;
  const PlanComparison c = compare_plans(a, b);
  const std::vector<CompareSummaryRow> rows = compare_summary_rows(a, b, c);
  EXPECT_EQ(row(rows, "batch").b, "64 × 2 steps × 8 GPUs = 1024");
  EXPECT_TRUE(row(rows, "batch").differs);
  const CompareSummaryRow& throughput = row(rows, "throughput (samples/s)");
  EXPECT_TRUE(throughput.delta.ends_with(" (−0.04 %)")) << throughput.delta;
  EXPECT_EQ(throughput.better, -1);
  EXPECT_EQ(row(rows, "operators with another choice").delta, "1 of 98");
  const CompareLines lines = compare_lines(c, false);
  // embedding..layer4 folded, layer 5 alone, the rest folded.
  ASSERT_EQ(lines.lines.size(), 3u);
  EXPECT_FALSE(lines.lines[1].folded());
  const auto cells = compare_row_cells(c.operators[5]);
  EXPECT_EQ(cells[0], c.operators[5].name);
  EXPECT_NE(cells[3], cells[4]);
  EXPECT_EQ(cells[7], "+1.00 MiB");
  EXPECT_EQ(cells[10], "");
  const auto strong = compare_row_differs(c.operators[5]);
  EXPECT_TRUE(strong[0] && strong[3] && strong[4] && strong[5] && !strong[1] && !strong[8]);
  EXPECT_EQ(compare_table_header()[7], "Δ memory");
}

TEST(CompareRows, MessagesStandInsteadOfTheTable) {
  const PlanSnapshot a = default_snapshot();
  EXPECT_EQ(compare_message(std::nullopt, a, {}).substr(0, 13), "No plan A yet");
  EXPECT_EQ(compare_message(a, std::nullopt, {}),
            "No plan B: the planner has not shown a plan since A was kept.");
  PlanSnapshot unfit = a;
  unfit.fits = false;
  EXPECT_EQ(compare_message(a, unfit, compare_plans(a, unfit)),
            "Plan B does not fit its memory limit, so there are no operator choices to compare.");
  EXPECT_EQ(compare_message(unfit, unfit, compare_plans(unfit, unfit)),
            "Neither plan fits its memory limit: no operator choices to compare.");
  EXPECT_EQ(compare_title(a, unfit), "Compare A/B — A: the plan kept, B: the plan shown now");
}

TEST(CompareRows, PercentAndPinsCostAreQuotedOnce) {
  EXPECT_EQ(percent_change(99.96, 100), "−0.04 %");
  EXPECT_EQ(percent_change(101.234, 100), "+1.23 %");
  EXPECT_EQ(percent_change(100.001, 100), "±0.00 %");
  EXPECT_EQ(percent_change(1, 0), "");
  PlanPrediction pinned, unpinned;
  pinned.samples_per_second = 30.75;
  unpinned.samples_per_second = 30.76;
  pinned.peak_memory_bytes = 2.0 * 1024 * 1024 * 1024;
  unpinned.peak_memory_bytes = 1.0 * 1024 * 1024 * 1024;
  const PinsCost cost = pins_cost(pinned, unpinned);
  EXPECT_EQ(cost.throughput, "−0.03 %");
  EXPECT_EQ(cost.peak_memory, "+1.00 GiB");
  PlanSnapshot a = default_snapshot();
  a.pins.resize(2);
  a.unpinned = unpinned;
  a.plan.predicted.samples_per_second = 30.75;
  const std::vector<CompareSummaryRow> rows = compare_summary_rows(a, a, compare_plans(a, a));
  EXPECT_EQ(row(rows, "pins").a, "2 pinned operators (throughput −0.03 % against the unpinned plan)");
}

}  // namespace
}  // namespace shardscope::present

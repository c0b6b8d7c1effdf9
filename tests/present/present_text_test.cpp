// The CLI's texts from the presentation library: the whole `shardscope plan` report of the default scenario
// and of one that does not fit, byte for byte as the golden transcripts record them, and its parts.
#include <gtest/gtest.h>

#include <sstream>

#include "present/enum_choices.hpp"
#include "present/operator_rows.hpp"
#include "present/plan_text.hpp"
#include "present/text_table.hpp"
#include "tests/present/plan_fixture.hpp"

namespace shardscope::present {
namespace {

using testing::default_plan;
using testing::transcript_stdout;

TEST(PresentText, WholeReportIsThePlanTranscript) {
  const auto& p = default_plan();
  std::ostringstream text;
  write_plan_text(p.scenario, p.report, text);
  EXPECT_EQ(text.str(), transcript_stdout("tests/transcripts/plan-default.tesh"));
}

// Without a global batch the report says the ranking rests on the accumulation steps it assumed; with one,
// where every strategy reaches the same global batch, it does not.
TEST(PresentText, SaysWhenTheRankingDependsOnAssumedAccumulationSteps) {
  testing::Planned p = default_plan();
  std::ostringstream without;
  write_plan_text(p.scenario, p.report, without);
  EXPECT_NE(without.str().find(
                "No global batch given: every strategy takes 1 accumulation step per optimizer step"),
            std::string::npos);
  p.scenario.training.global_batch = 48;
  std::ostringstream with;
  write_plan_text(p.scenario, p.report, with);
  EXPECT_EQ(with.str().find("No global batch given"), std::string::npos);
}

TEST(PresentText, NoFitReportIsTheErrorTranscript) {
  const auto p = testing::plan_file("tests/transcripts/inputs/no-fit.yaml", false);
  std::ostringstream text;
  write_plan_text(p.scenario, p.report, text);
  EXPECT_EQ(text.str(), transcript_stdout("tests/transcripts/error-no-plan-fits.tesh"));
}

TEST(PresentText, OperatorRowsFoldRepeatedLayers) {
  const auto& p = default_plan();
  const Plan& plan = p.report.best.plan;
  const std::vector<OperatorRow> rows = group_operators(p.scenario, plan, p.report.best.operator_costs);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(row_label(plan, rows[2]), "layer0.mlp .. layer47.mlp");
  EXPECT_EQ(rows[2].members.size(), 48u);
  EXPECT_EQ(operator_row_cells(plan, p.report.best.operator_costs, rows[3]),
            (std::vector<std::string>{"layer1.attention .. layer47.attention", "47", "GGG", "1", "yes",
                                      "36.02 MiB", "13.040 ms"}));
  EXPECT_EQ(operator_row_cells(plan, p.report.best.operator_costs, rows[4]),
            (std::vector<std::string>{"head", "1", "GGG 8/8", "8", "no", "1.33 GiB", "63.140 ms"}));
  std::size_t members = 0;
  for (const OperatorRow& r : rows) members += r.members.size();
  EXPECT_EQ(members, plan.operators.size());
}

TEST(PresentText, MeshCellSumsEachAxisAndKindOfCollective) {
  Operator op;
  EXPECT_EQ(mesh_cell(op), "");
  EXPECT_TRUE(mesh_collective_lines(op).empty());
  const double mib = 1024.0 * 1024.0;
  op.tensor_collectives = {{CollectiveKind::all_gather, false, 8 * mib, MeshAxis::tensor, false},
                           {CollectiveKind::reduce_scatter, true, 8 * mib, MeshAxis::tensor, false},
                           {CollectiveKind::all_gather, false, 2 * mib, MeshAxis::context, true},
                           {CollectiveKind::reduce_scatter, true, 2 * mib, MeshAxis::context, true},
                           {CollectiveKind::all_reduce, true, 1 * mib, MeshAxis::context, false}};
  EXPECT_EQ(
      mesh_cell(op),
      "TP 2 blocking, 16.00 MiB/sample; CP 1 blocking, 1.00 MiB/sample; CP 2 overlapped, 4.00 MiB/sample");
  const std::vector<std::string> lines = mesh_collective_lines(op);
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0], "TP all-gather, forward, 8.00 MiB/sample, blocking");
  EXPECT_EQ(lines[3], "CP reduce-scatter, backward, 2.00 MiB/sample, overlapped");
}

TEST(PresentText, ChoiceTextSpellsEveryShape) {
  OperatorChoice c;
  c.slices = 4;
  c.sharded_slices = 0;
  EXPECT_EQ(choice_text(c), "NNN (DP)");
  c.sharded_slices = 2;
  c.scopes = {ShardScope::I, ShardScope::I, ShardScope::G};
  EXPECT_EQ(choice_text(c), "IIG 2/4");
  c.secondary_parameter_partition = true;
  EXPECT_EQ(choice_text(c), "IIG+hpZ 2/4");
  c.slices = 1;
  c.sharded_slices = 1;
  EXPECT_EQ(choice_text(c), "IIG+hpZ");
}

TEST(PresentText, LinesOfTheReport) {
  const auto& p = default_plan();
  EXPECT_EQ(scenario_line(p.scenario),
            "Scenario  default: nd-48x1536 on 8 x TITAN RTX, memory limit 7.45 GiB per GPU");
  EXPECT_EQ(plan_line(p.scenario, p.report.best.plan),
            "Plan (shardscope), micro-batch 6 x 1 accumulation steps x 8 GPUs, nccl collectives");
  EXPECT_EQ(
      predicted_line(p.report.best),
      "Predicted  1.560 s per iteration, 30.76 samples/s, 31502 tokens/s, peak 7.41 GiB per GPU reserved, "
      "6.56 GiB allocated");
  EXPECT_EQ(fixed(2.0 / 3.0, 3), "0.667");
  const double fsdp = fsdp_samples_per_second(p.report);
  EXPECT_EQ(plan_row_cells(p.report.best, fsdp),
            (std::vector<std::string>{"shardscope", "6", "nccl", "1.560 s", "233.818 ms", "30.76", "7.41 GiB",
                                      "1.09x"}));
  EXPECT_EQ(plan_row_cells(p.report.best, 0).back(), "-");
  EXPECT_EQ(
      communication_line(p.report.best),
      "Communication  1.054 s of collectives per iteration, 233.818 ms exposed (15.0 % of the "
      "iteration): backward-gather all-gather global 142.572 ms of 270.350 ms, forward-gather all-gather "
      "global 49.621 ms of 270.350 ms, gradient-reduce reduce-scatter global 40.598 ms of 270.350 ms");
}

TEST(PresentText, TextTableAlignsAsTheCli) {
  TextTable t({"name", "n", "value"});
  t.add({"a", "1", "22"});
  t.add({"bbb", "333", "4"});
  std::ostringstream os;
  t.print(os);
  EXPECT_EQ(os.str(),
            "  name  n    value\n"
            "  ----------------\n"
            "  a     1       22\n"
            "  bbb   333      4\n");
}

TEST(PresentText, EnumChoicesFollowTheNameTable) {
  const std::vector<EnumChoice> precisions = enum_choices<Precision>();
  ASSERT_EQ(precisions.size(), names<Precision>().size());
  for (std::size_t i = 0; i < precisions.size(); ++i) {
    EXPECT_EQ(precisions[i].name, names<Precision>()[i]);
    EXPECT_FALSE(precisions[i].description.empty());
  }
  EXPECT_EQ(enum_choices<CollectivesChoice>().front().name, "auto");
}

}  // namespace
}  // namespace shardscope::present

// Operators as rows: a choice as text, operators with the same kind, choice and cost (repeated layers)
// sharing one row, and the operator table's cells, as `shardscope plan` prints them and the GUI shows them.
#pragma once

#include <string>
#include <vector>

#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"
#include "planner/search/planner.hpp"

namespace shardscope::present {

// "NNN (DP)" when nothing is sharded, else the scopes, "+hpZ" with a secondary partition, and "k/g" for more
// than one slice: "GGG", "GGG 4/8", "IIG+hpZ 2/4".
std::string choice_text(const OperatorChoice& c);

// One row of operators: their indices into the plan, in model order (the first names the row).
struct OperatorRow {
  std::vector<std::size_t> members;
};

// The plan's operators grouped as the CLI's table groups them: an operator joins the first row whose first
// operator has the same kind, choice text, checkpointing, time and resident memory; rows in order of their
// first operator. `costs` has one entry per operator of `plan`.
std::vector<OperatorRow> group_operators(const Scenario& scenario, const Plan& plan,
                                         const std::vector<OperatorCost>& costs);

// "embedding", or the first and last names of a row: "layer0.mlp .. layer47.mlp".
std::string row_label(const Plan& plan, const OperatorRow& row);

// The operator table: "operators", "count", "scopes", "slices", "ckpt", "memory/GPU each", "time each".
std::vector<std::string> operator_table_header();
// One row's cells under that header (its first operator's choice and cost).
std::vector<std::string> operator_row_cells(const Plan& plan, const std::vector<OperatorCost>& costs,
                                            const OperatorRow& row);

// The mesh's collectives in an operator's passes (a model sliced by tensor or context parallelism), per
// axis: "TP 4 blocking, 32.00 MiB/sample; CP 3 overlapped, 8.00 MiB/sample"; "" for an operator with none.
std::string mesh_cell(const Operator& op);
// One line per collective: "TP all-reduce, backward, 8.00 MiB/sample, blocking".
std::vector<std::string> mesh_collective_lines(const Operator& op);

std::string yes_no(bool b);  // the checkpoint column: "yes", "no"

}  // namespace shardscope::present

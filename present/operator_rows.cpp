// Choice texts, the grouping of repeated operators and the operator table's cells.
#include "present/operator_rows.hpp"

#include "planner/core/collective_kind.hpp"
#include "planner/core/units.hpp"

namespace shardscope::present {

std::string choice_text(const OperatorChoice& c) {
  if (c.sharded_slices == 0) return "NNN (DP)";
  std::string s = c.scopes.name();
  if (c.secondary_parameter_partition) s += "+hpZ";
  if (c.slices > 1) s += " " + std::to_string(c.sharded_slices) + "/" + std::to_string(c.slices);
  return s;
}

namespace {

const char* axis_text(MeshAxis axis) {
  return axis == MeshAxis::tensor ? "TP" : axis == MeshAxis::context ? "CP" : "EP";
}

std::string per_sample(double bytes) { return units::format_bytes(bytes) + "/sample"; }

}  // namespace

std::string mesh_cell(const Operator& op) {
  std::string out;
  for (const MeshAxis axis : {MeshAxis::tensor, MeshAxis::context, MeshAxis::expert}) {
    for (const bool overlapped : {false, true}) {
      int count = 0;
      double bytes = 0;
      for (const TensorCollective& t : op.tensor_collectives) {
        if (t.axis != axis || t.overlapped != overlapped) continue;
        ++count;
        bytes += t.bytes_per_sample;
      }
      if (count == 0) continue;
      out += (out.empty() ? "" : "; ") + std::string(axis_text(axis)) + " " + std::to_string(count) +
             (overlapped ? " overlapped, " : " blocking, ") + per_sample(bytes);
    }
  }
  return out;
}

std::vector<std::string> mesh_collective_lines(const Operator& op) {
  std::vector<std::string> out;
  for (const TensorCollective& t : op.tensor_collectives) {
    out.push_back(std::string(axis_text(t.axis)) + " " + (t.all_to_all ? "all-to-all" : to_string(t.kind)) +
                  (t.backward ? ", backward, " : ", forward, ") + per_sample(t.bytes_per_sample) +
                  (t.overlapped ? ", overlapped" : ", blocking"));
  }
  return out;
}

std::vector<OperatorRow> group_operators(const Scenario& scenario, const Plan& plan,
                                         const std::vector<OperatorCost>& costs) {
  std::vector<OperatorRow> rows;
  for (std::size_t i = 0; i < plan.operators.size(); ++i) {
    const OperatorChoice& c = plan.operators[i];
    const ItemCost& cost = costs[i].cost;
    const OperatorKind kind = scenario.model.operators[i].kind;
    bool placed = false;
    for (OperatorRow& row : rows) {
      const std::size_t j = row.members.front();
      const OperatorChoice& d = plan.operators[j];
      if (scenario.model.operators[j].kind == kind && choice_text(d) == choice_text(c) &&
          d.checkpoint == c.checkpoint && costs[j].cost.seconds == cost.seconds &&
          costs[j].cost.resident_bytes == cost.resident_bytes) {
        row.members.push_back(i);
        placed = true;
        break;
      }
    }
    if (!placed) rows.push_back({{i}});
  }
  return rows;
}

std::string row_label(const Plan& plan, const OperatorRow& row) {
  std::string label = plan.operators[row.members.front()].name;
  if (row.members.size() > 1) label += " .. " + plan.operators[row.members.back()].name;
  return label;
}

std::vector<std::string> operator_table_header() {
  return {"operators", "count", "scopes", "slices", "ckpt", "memory/GPU each", "time each"};
}

std::vector<std::string> operator_row_cells(const Plan& plan, const std::vector<OperatorCost>& costs,
                                            const OperatorRow& row) {
  const std::size_t first = row.members.front();
  const OperatorChoice& c = plan.operators[first];
  const ItemCost& cost = costs[first].cost;
  return {row_label(plan, row),
          std::to_string(row.members.size()),
          choice_text(c),
          std::to_string(c.slices),
          yes_no(c.checkpoint),
          units::format_bytes(cost.resident_bytes),
          units::format_duration(cost.seconds)};
}

std::string yes_no(bool b) { return b ? "yes" : "no"; }

}  // namespace shardscope::present

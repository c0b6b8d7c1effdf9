// The three export formats' writers, each from the shared placements and header (export_layout.hpp).
#pragma once

#include <string>
#include <vector>

#include "planner/report/internal/export_layout.hpp"

namespace shardscope::exporting {

std::string fsdp2_module(const Scenario& scenario, const Plan& plan, const std::vector<std::string>& header,
                         const std::vector<Placement>& placements);
// torchtitan and DeepSpeed run one policy for the whole model: the dominant placement's, whose differing
// operators the caller lists (dominant.differing) as not expressible.
std::string torchtitan_toml(const Scenario& scenario, const Plan& plan,
                            const std::vector<std::string>& header, const Dominant& dominant);
// What one policy for the model cannot say in `format` (torchtitan or deepspeed): the operators planned
// otherwise, and the dominant placement's parts the target lacks.
std::vector<std::string> single_policy_notes(ExportFormat format, const Scenario& scenario,
                                             const Dominant& dominant);
std::string deepspeed_json(const Scenario& scenario, const Plan& plan, const std::vector<std::string>& header,
                           const Dominant& dominant);

}  // namespace shardscope::exporting

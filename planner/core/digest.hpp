// Digests of a resolved scenario and calibration (FNV-1a 64 of a canonical text), so a plan can say what it
// was made for.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "planner/core/calibration.hpp"
#include "planner/core/plan.hpp"
#include "planner/core/scenario.hpp"

namespace shardscope {

std::uint64_t fnv1a_64(std::string_view bytes);

// Over the resolved values (model operators and sequence length, cluster, training config and planner
// options), not the file's bytes: comments, spelling (8GB vs 8000MB), labels and paths do not count.
std::uint64_t scenario_digest(const Scenario& scenario);
std::uint64_t calibration_digest(const Calibration& calibration);
// Over the model's operators alone (names, sizes, FLOPs, activations): two models with the same operator
// names but other shapes differ.
std::uint64_t model_digest(const Model& model);

// Over what a plan makes every rank execute: the model digest it was made for, micro-batch,
// accumulation steps, group size, precision and each operator's choice (name, scopes, hpZ, slices, sharded
// slices, checkpoint); not its strategy label or predictions. The validation harness records it with each
// measured iteration (`plan_digest`), and `compare` checks it against the plan it predicts.
std::uint64_t plan_digest(const Plan& plan);

// 16 lower-case hex digits; parse_digest returns false for anything else.
std::string format_digest(std::uint64_t digest);
bool parse_digest(const std::string& text, std::uint64_t& digest);

}  // namespace shardscope

// The reproduction of published measurements as Markdown (per source and part, then every row) and JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "validate/fit/reproduce.hpp"

namespace shardscope::fit {

struct Reproduction {
  std::string calibration;  // "none" or the calibration file
  std::vector<SourceReproduction> sources;
  ReproduceSummary fit, held_out, all;  // over every source's rows
};

// Summarises the sources' rows together (fit, held_out, all).
Reproduction make_reproduction(std::vector<SourceReproduction> sources, std::string calibration);

std::string reproduction_markdown(const Reproduction& reproduction);
nlohmann::ordered_json reproduction_json(const Reproduction& reproduction);

}  // namespace shardscope::fit

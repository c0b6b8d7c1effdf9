// `calibrate --published FILE... [--runtime NAME] [--free kernels|peak] --out c.yaml`: a runtime profile's
// free parameters fitted to published rows (validate/fit/published_fit.hpp), the fit and held-out parts
// scored before and after.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace shardscope::cli {

struct PublishedCalibrateOptions {
  std::vector<std::string> files;
  std::string runtime;  // empty: the files' runtime_profile
  std::string free;     // empty: kernels (fit::PublishedFreeParameters)
  std::string out, report;
};

void run_calibrate_published(const PublishedCalibrateOptions& options, std::ostream& out);

}  // namespace shardscope::cli

// kernels.py's measured products and attention back ends turned into calibration.yaml's `runtime:` fits.
#include "validate/fit/kernel_bench.hpp"

#include "planner/core/error.hpp"
#include "planner/io/internal/json_reader.hpp"
#include "planner/io/text_file.hpp"

namespace shardscope::fit {

namespace {

// The list index of the entry measured at `micro_batch` (0: the largest).
std::size_t micro_batch_entry(const JsonObjectReader& root, int micro_batch) {
  std::size_t best = 0;
  std::int64_t largest = 0;
  for (std::size_t i = 0; i < root.list_size("micro_batches"); ++i) {
    const std::int64_t mb = root.list_object("micro_batches", i).integer("micro_batch", 1, 1 << 20);
    if (mb == micro_batch) return i;
    if (mb > largest) largest = mb, best = i;
  }
  if (micro_batch == 0 && largest > 0) return best;
  root.fail("micro_batches",
            micro_batch == 0 ? "no entries" : "no entry for micro-batch " + std::to_string(micro_batch));
}

}  // namespace

RuntimeCalibration measured_kernel_fits(const std::string& path, const KernelBenchOptions& options) {
  return parse_kernel_fits(read_text_file(path, "kernel measurements"), path, options);
}

RuntimeCalibration parse_kernel_fits(const std::string& text, const std::string& file,
                                     const KernelBenchOptions& options) {
  const JsonDocument doc(text, file);
  const JsonObjectReader root(doc, "");
  const double peak = options.peak_flops_per_second;
  if (!(peak > 0)) throw InputError(file, 0, "peak", "the cluster's peak FLOP/s must be positive");
  const JsonObjectReader entry =
      root.list_object("micro_batches", micro_batch_entry(root, options.micro_batch));
  // Time at gemm_fraction 1: sum of F (F + h) / F / peak; the measured time sets the fraction.
  double unit_seconds = 0, seconds = 0;
  for (std::size_t i = 0; i < entry.list_size("products"); ++i) {
    const JsonObjectReader p = entry.list_object("products", i);
    const double flops = p.positive_number("flops");
    unit_seconds += (flops + options.gemm_half_rate_flops) / peak;
    seconds += p.positive_number("seconds");
  }
  if (!(seconds > 0)) entry.fail("products", "no products measured");
  RuntimeCalibration fits;
  fits.gemm_fraction = unit_seconds / seconds;
  for (std::size_t i = 0; i < entry.list_size("attention"); ++i) {
    const JsonObjectReader a = entry.list_object("attention", i);
    if (a.string("backend") != options.attention + "_attention" || a.string("layout") != "repeated") continue;
    if (a.has("skipped"))
      a.fail("skipped", options.attention + " attention did not run: " + a.string("skipped"));
    const double forward_flops = a.positive_number("forward_flops");  // the causal half
    fits.attention_forward_fraction = forward_flops / a.positive_number("forward_seconds") / peak;
    fits.attention_backward_fraction = 2.5 * forward_flops / a.positive_number("backward_seconds") / peak;
    return fits;
  }
  entry.fail("attention", "no " + options.attention + " attention with repeated key/value heads");
}

}  // namespace shardscope::fit

// kernels.py's measured products and attention back ends turned into gpu.kernels' efficiencies.
#include "validate/fit/kernel_bench.hpp"

#include "planner/core/error.hpp"
#include "planner/io/internal/json_reader.hpp"
#include "planner/io/text_file.hpp"

namespace shardscope::fit {

namespace {

// The list index of the entry measured at `micro_batch`.
std::size_t micro_batch_entry(const JsonObjectReader& root, int micro_batch) {
  for (std::size_t i = 0; i < root.list_size("micro_batches"); ++i)
    if (root.list_object("micro_batches", i).integer("micro_batch", 1, 1 << 20) == micro_batch) return i;
  root.fail("micro_batches", "no entry for micro-batch " + std::to_string(micro_batch));
}

}  // namespace

KernelEfficiency measured_kernel_efficiency(const std::string& path, int micro_batch,
                                            const std::string& backend, double elementwise_fraction) {
  const JsonDocument doc(read_text_file(path, "kernel measurements"), path);
  const JsonObjectReader root(doc, "");
  const double peak = root.positive_number("peak_tflops") * 1e12;
  const JsonObjectReader entry = root.list_object("micro_batches", micro_batch_entry(root, micro_batch));
  KernelEfficiency k;
  double flops = 0, seconds = 0;
  for (std::size_t i = 0; i < entry.list_size("products"); ++i) {
    const JsonObjectReader p = entry.list_object("products", i);
    flops += p.positive_number("flops");
    seconds += p.positive_number("seconds");
  }
  if (!(seconds > 0)) entry.fail("products", "no products measured");
  k.gemm_fraction = flops / seconds / peak;
  k.gemm_half_rate_flops = 0;
  bool found = false;
  for (std::size_t i = 0; i < entry.list_size("attention") && !found; ++i) {
    const JsonObjectReader a = entry.list_object("attention", i);
    if (a.string("backend") != backend + "_attention" || a.string("layout") != "repeated") continue;
    if (a.has("skipped")) a.fail("skipped", backend + " attention did not run: " + a.string("skipped"));
    const double forward_flops = a.positive_number("forward_flops");
    k.attention_forward_fraction = forward_flops / a.positive_number("forward_seconds") / peak;
    k.attention_backward_fraction = 2.5 * forward_flops / a.positive_number("backward_seconds") / peak;
    found = true;
  }
  if (!found) entry.fail("attention", "no " + backend + " attention with repeated key/value heads");
  k.elementwise_fraction = elementwise_fraction;
  return k;
}

}  // namespace shardscope::fit

// Calibration: measured coefficients that override the cost model's defaults (read by io/calibration_parser).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "planner/core/cluster.hpp"
#include "planner/core/collective_kind.hpp"
#include "planner/core/model.hpp"
#include "planner/core/names.hpp"

namespace shardscope {

struct LinkCalibration {
  double alpha_seconds = 0;     // per ring step
  double bytes_per_second = 0;  // effective bandwidth per direction
};

// A matrix product's time from its shape, fitted on one GPU's products (validate/data/h100): the larger of
//   FLOPs / (peak x fraction x F / (F + half_rate_flops))   (small products reach less of the kind's rate)
//   operand bytes / operand_bytes_per_second                (A, B and C through memory once each, 2-byte)
// where F is the product's FLOPs and fraction the kind's achievable fraction; a misaligned product runs at
// `misaligned_fraction` of peak instead (cuBLAS falls back from its tensor-core kernels: the GPT-2
// vocabulary's 50257). Which dimensions must be multiples of `alignment_elements` depends on how the caller
// lays the matrices out: its rows m or its reduction k (column-major operands, as the validation harness
// calls cuBLAS: a head whose n is 50257 ran at full rate on the H100), or any of m, n and k (PyTorch's
// row-major products: all three of its head's products ran at 97-143 TFLOP/s).
enum class MisalignedDimensions { rows_or_reduction, any };
template <>
struct EnumNames<MisalignedDimensions> {
  static constexpr NameEntry<MisalignedDimensions> table[] = {
      {MisalignedDimensions::rows_or_reduction, "rows-or-reduction",
       "m or k not a multiple of the alignment"},
      {MisalignedDimensions::any, "any", "m, n or k not a multiple of the alignment"},
  };
};

struct ProductShapeModel {
  double half_rate_flops = 0;           // >= 0; 0: every size at the kind's rate
  double operand_bytes_per_second = 0;  // > 0
  double misaligned_fraction = 0;       // in (0, 1]; 0: as an aligned product
  int alignment_elements = 8;           // >= 1
  MisalignedDimensions misaligned_dimensions = MisalignedDimensions::rows_or_reduction;
};

// `runtime:` in a calibration file: a runtime profile's host costs and the GPU's kernel efficiencies, fitted
// to measured rows (calibrate --published); each unset keeps the profile's or the cluster preset's value.
// Read only under a runtime other than ideal.
struct RuntimeCalibration {
  std::optional<double> host_forward_seconds, host_backward_seconds;
  std::optional<double> gemm_fraction, gemm_half_rate_flops;
  std::optional<double> attention_forward_fraction, attention_backward_fraction;
  std::optional<double> elementwise_fraction;
  bool any() const {
    return host_forward_seconds || host_backward_seconds || gemm_fraction || gemm_half_rate_flops ||
           attention_forward_fraction || attention_backward_fraction || elementwise_fraction;
  }
};

// How far predictions made with a calibration were from measurements it was not fitted on (`prediction_error`
// in the file; calibrate --published writes its held-out rows'): tokens/s per GPU, fractions. Not in the
// digest: it changes no prediction, only the uncertainty stated beside it.
struct CalibrationPredictionError {
  int rows = 0;
  double mape = 0, bias = 0, worst = 0;  // mean |predicted / measured - 1|, its signed mean, its largest
  std::string scored_on;                 // what the rows were ("held-out rows of FILE under fsdp2 on GPU")
  // Pairs of the rows on one setting or source: how many, and the root mean square of ln(predicted ratio /
  // measured ratio) over them (0 pairs: not scored), as PublishedError's.
  int pairs = 0;
  double pair_sd = 0;
};

struct Calibration {
  std::string source_file;  // the calibration file it came from ("" when built in code); not in the digest
  std::optional<CalibrationPredictionError> prediction_error;  // not in the digest
  // Per link class (indexed by LinkClass); unset = the cluster's nominal numbers.
  std::array<std::optional<LinkCalibration>, 5> links;
  // Achievable fraction of peak FLOP/s per operator kind (indexed by OperatorKind); unset = the GPU's.
  std::array<std::optional<double>, 8> achievable_fraction;
  // Extra fraction of the shorter stream while compute and communication overlap (SM and memory contention).
  // 0 until measured: the simulator does not model it, and a calibration (validate/) fits it.
  double overlap_slowdown = 0.0;
  double slice_overhead_seconds = 10e-6;  // per extra slice per pass (slicing and summation)
  std::optional<double> runtime_reserve_bytes;
  // Bandwidth efficiency by message size (NCCL's protocols reach full bandwidth only for large messages):
  // (message bytes, factor in (0, 1]) points, sizes increasing; log-linear between them, flat outside.
  // The default for every link class; `links.CLASS.message_efficiency` gives one class its own table.
  std::vector<std::pair<double, double>> message_efficiency;
  // Per link class (indexed by LinkClass); empty = the default table above.
  std::array<std::vector<std::pair<double, double>>, 5> link_message_efficiency;
  // Per link class and collective kind (indexed by LinkClass, then CollectiveKind): a factor in (0, 1] on the
  // class's bandwidth for that kind, `links.CLASS.collective_efficiency.KIND`; unset = 1. A CPU reduces in
  // memory, so its reduce-scatter and all-reduce run slower per byte than its all-gather; NCCL on GPUs runs
  // the three at about one bus bandwidth. Ring pricing uses it (with the message efficiency of the same
  // bottleneck class); the NCCL model does not.
  std::array<std::array<std::optional<double>, 3>, 5> collective_efficiency;
  // Rate efficiency by matrix-product size per operator kind (indexed by OperatorKind; small products reach
  // less of their kind's rate): (FLOPs of one product, factor in (0, 1]) points, FLOPs increasing;
  // log-linear between them, flat outside. Each product of an operator (Operator::forward_gemms, at the
  // micro-batch and slice it runs) is priced at its kind's fraction x this factor, its backward products at
  // its own; empty = 1 (one rate per operator kind), `gemm_efficiency.KIND` in the file.
  std::array<std::vector<std::pair<double, double>>, 8> gemm_efficiency;
  // Set: every product of an operator with shapes is priced by it (the gemm_efficiency tables are then not
  // used), its backward as the data- and weight-gradient products, `product_shapes` in the file.
  std::optional<ProductShapeModel> product_shapes;
  // Set (> 0): each forward pass also moves the operator's kept activation bytes once and each backward pass
  // twice, at this bandwidth (norms, activations, softmax, residuals: what the validation harness runs beside
  // the products), `elementwise_bandwidth` in the file; 0: element-wise work is not priced.
  double elementwise_bytes_per_second = 0;
  RuntimeCalibration runtime;
};

// Where a runtime profile's kernel pricing takes its matrix products' rates from, first that applies: the
// calibration's `runtime:` fit of the kernels' size curve (gemm_fraction or gemm_half_rate_flops set), its
// product_shapes model, its per-kind achievable_fraction and gemm_efficiency tables (a kind without one
// keeps the GPU's fraction and size curve), else the GPU's kernel efficiencies (cluster.gpu.kernels). The
// ideal executor prices with the calibration's fields directly (compute_model.hpp).
enum class KernelProductSource { runtime_fit, product_shapes, kind_fits, gpu_kernels };
template <>
struct EnumNames<KernelProductSource> {
  static constexpr NameEntry<KernelProductSource> table[] = {
      {KernelProductSource::runtime_fit, "runtime-fit",
       "the calibration's runtime: fit of the kernels' curve"},
      {KernelProductSource::product_shapes, "product-shapes", "the calibration's product_shapes model"},
      {KernelProductSource::kind_fits, "kind-fits",
       "the calibration's achievable_fraction and gemm_efficiency per kind"},
      {KernelProductSource::gpu_kernels, "gpu-kernels",
       "the GPU's kernel efficiencies (cluster.gpu.kernels)"},
  };
};
KernelProductSource kernel_product_source(const Calibration& calibration);

// The kernel efficiencies a runtime prices with: the preset's, each replaced where the calibration fits it.
KernelEfficiency effective_kernels(const KernelEfficiency& preset, const RuntimeCalibration& calibration);
// The profile's host costs, each replaced where the calibration fits it.
RuntimeProfile effective_runtime(const RuntimeProfile& profile, const RuntimeCalibration& calibration);

// The efficiency factor for one ring step's message by the default table (1 when there is none).
double message_efficiency_factor(const Calibration& calibration, double message_bytes);
// The same by the table of one link class (its own, else the default). A ring uses its bottleneck class's.
double message_efficiency_factor(const Calibration& calibration, LinkClass link_class, double message_bytes);
// The rate factor of one matrix product of `product_flops` FLOPs of an operator of `kind` (1 without a
// table).
double gemm_efficiency_factor(const Calibration& calibration, OperatorKind kind, double product_flops);
// The seconds of one product (`batch` products of m x k by k x n) by the calibration's product_shapes model
// for an operator of `kind`, with `peak_flops_per_second` and `fraction` the GPU's; requires product_shapes.
double product_shape_seconds(const ProductShapeModel& model, double peak_flops_per_second, double fraction,
                             double batch, double m, double n, double k);
// The bandwidth factor of one collective kind on one link class (1 when unset).
double collective_efficiency_factor(const Calibration& calibration, LinkClass link_class,
                                    CollectiveKind kind);

}  // namespace shardscope

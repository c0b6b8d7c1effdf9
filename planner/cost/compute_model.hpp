// Compute time of an operator from its FLOPs and the GPU's achievable rate (calibratable per operator kind
// and by matrix-product size), or from its products' shapes and element-wise bytes (calibration.hpp), or,
// under a framework's runtime profile, from the GPU's kernel efficiencies (kernel_pricing.cpp).
#pragma once

#include <memory>

#include "planner/core/calibration.hpp"
#include "planner/core/cluster.hpp"
#include "planner/core/model.hpp"
#include "planner/core/runtime_profile.hpp"
#include "planner/core/training_config.hpp"
#include "planner/cost/all_to_all.hpp"
#include "planner/cost/collective_cost.hpp"

namespace shardscope {

// The price of a sliced model's mesh collectives (Operator::tensor_collectives): its tensor-parallel groups
// (consecutive GPUs of the physical nodes), its context-parallel groups and its expert-parallel groups'
// all-to-alls (consecutive data-parallel ranks); null where the mesh has no such axis (topology_cost.hpp:
// mesh_group_costs).
struct MeshGroupCosts {
  std::shared_ptr<const CollectiveCost> tensor;
  std::shared_ptr<const CollectiveCost> context;
  std::shared_ptr<const AllToAllLink> expert;
};

class ComputeModel {
 public:
  // `runtime` other than ideal prices kernels by the GPU's efficiencies (cluster.gpu.kernels, which scenario
  // validation requires then) and the calibration's `runtime` fits, with the profile's host floor per pass;
  // `options` (compiled element-wise kernels, float8 products) apply to that pricing only.
  // `mesh` prices operators' mesh collectives (Operator::tensor_collectives) as its groups' intra-group
  // collectives.
  ComputeModel(const Cluster& cluster, Precision precision, const Calibration& calibration,
               const RuntimeProfile& runtime = {}, const KernelOptions& options = {},
               MeshGroupCosts mesh = {});

  double flops_per_second(const Operator& op) const;
  // The whole pass over `samples` samples, cut into `slices` slices (each computes 1/slices of every
  // product's output columns): with a calibration's gemm_efficiency table for the operator's kind, each
  // product is priced at the rate of its own size there, so more slices (smaller products) can take longer;
  // without one, slices change nothing.
  double forward_seconds(const Operator& op, double samples, int slices = 1) const;
  double backward_seconds(const Operator& op, double samples, int slices = 1) const;
  // Both passes with one product-size lookup (the search prices every operator and choice this way),
  // each with the operator's blocking tensor-parallel collectives.
  struct PassSeconds {
    double forward = 0, backward = 0;
  };
  PassSeconds pass_seconds(const Operator& op, double samples, int slices) const;
  // One mesh collective of `bytes` (its whole buffer) on its group, as pass_seconds counts it, and the
  // part of it that is latency: an all-to-all's longest path (paid once), a context-parallel collective's
  // time for one byte; 0 for a tensor-parallel one (inside one data-parallel rank).
  struct MeshCollectivePrice {
    double seconds = 0, latency_seconds = 0;
    int group_ranks = 0;  // its group of data-parallel ranks (0 for a tensor-parallel one)
  };
  MeshCollectivePrice mesh_collective_price(const Operator& op, const TensorCollective& c,
                                            double bytes) const;
  // The share of the kind's rate the operator's products reach at that micro-batch and slicing: its
  // forward FLOPs over the sum of each product's FLOPs / gemm_efficiency_factor (FLOPs outside the products
  // at factor 1). 1 without a table or without product shapes (an operator given as a list).
  double size_factor(const Operator& op, double samples, int slices) const;
  // Optimizer update: memory-bound, reads and writes the owned model-state bytes once each at the
  // element-wise bandwidth below (a foreach AdamW over 1.9 billion fp32 parameters ran at 0.317 of an
  // H100's HBM rate, the fitted element-wise share: validate/data/h100/call-6).
  double update_seconds(double owned_state_bytes) const;
  // Element-wise kernels' bandwidth: under kernel pricing the framework's kernels' share of HBM
  // (gpu.kernels.elementwise_fraction, or the calibration's runtime fit of it); else the calibration's
  // measured one (the validation harness's own kernels: 2.47 TB/s on an H100 where PyTorch's eager kernels
  // and foreach AdamW reach 0.316 of its 3.35 TB/s), else HBM's whole rate (the ideal executor). Products
  // carry over between the two executors (both call cuBLAS), element-wise kernels do not.
  double elementwise_bytes_per_second() const;

 private:
  PassSeconds kernel_seconds(const Operator& op, double samples, int slices) const;  // products only
  PassSeconds shaped_pass_seconds(const Operator& op, double samples, int slices) const;
  // One product by the calibration's product_shapes model at the micro-batch (samples stacked into its rows,
  // or its batch when per sample) and slice (1/cuts of its columns, `cuts` times), its backward as
  // dA = dC B^T (m x k from n) and dB = A^T dC (k x n from m): both pricings use it.
  PassSeconds shaped_product_seconds(const GemmShape& g, double samples, double cuts, double peak,
                                     double fraction) const;
  PassSeconds kernel_pass_seconds(const Operator& op, double samples, int slices) const;
  // Under kernel pricing: the share of peak a kind's large products reach, and one product's seconds (all
  // slices; `speedup` float8's) from the source kernel_product_source names.
  double kernel_gemm_fraction(OperatorKind kind) const;
  PassSeconds kernel_product_seconds(OperatorKind kind, const GemmShape& g, double samples, double cuts,
                                     double speedup) const;
  double peak_flops_per_second() const;

  // One mesh collective of `bytes` (its whole buffer) on its group.
  double mesh_collective_seconds(const Operator& op, const TensorCollective& c, double bytes) const;
  MeshGroupCosts mesh_;
  GpuSpec gpu_;
  Precision precision_;
  Calibration calibration_;   // owned: callers often pass a temporary
  RuntimeProfile runtime_;    // with the calibration's host fits applied
  KernelEfficiency kernels_;  // the GPU's, with the calibration's fits applied (kernel pricing only)
  KernelOptions options_;
  KernelProductSource product_source_;
};

}  // namespace shardscope

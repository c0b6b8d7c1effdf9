// What a compute task of the iteration program runs on a real machine: the operator's matrix products with
// the model's shapes (forward; backward as data-gradient and weight-gradient products) and its element-wise
// bytes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "planner/core/model.hpp"
#include "planner/program/iteration_program.hpp"
#include "validate/measurements/measurements.hpp"

namespace shardscope::validate {

struct Gemm {
  std::string role;  // the forward product's role, "+dgrad" / "+wgrad" in backward
  OperatorKind operator_kind = OperatorKind::other;  // the operator's kind
  std::int64_t batch = 1;
  std::int64_t m = 0;  // C (m x n) = A (m x k) * B (k x n), `batch` times
  std::int64_t n = 0;
  std::int64_t k = 0;
  double flops() const { return gemm_flops(batch, m, n, k); }
  // Its measurement: `seconds` for one product (all `batch` of them) in `dtype`.
  GemmSample sample(std::string dtype, double seconds) const {
    return {role, operator_kind, batch, m, n, k, std::move(dtype), seconds, flops(), 0};
  }
};

// A tensor-, context- or expert-parallel collective an operator's pass runs (Operator::tensor_collectives)
// on its mesh group, after its products or beside them: `bytes` the whole buffer, as the planner prices it.
struct MeshCall {
  CollectiveKind kind = CollectiveKind::all_reduce;
  MeshAxis axis = MeshAxis::tensor;
  double bytes = 0;
  bool overlapped = false;  // runs beside the operator's kernels (context parallelism's K/V exchange)
  bool all_to_all = false;  // expert parallelism's dispatch or combine (`kind` not read)
};

// A compute task's work: its products, the bytes its element-wise kernels move, its mesh collectives.
struct KernelWork {
  std::vector<Gemm> gemms;
  double elementwise_bytes = 0;
  std::vector<MeshCall> mesh;
};

// How the proxy scales the model: `compute_scale` multiplies the rows (m) of every product and every
// element-wise byte count (1 = the model's own shapes), so a step of a big model runs in seconds on a laptop.
struct WorkScale {
  std::int64_t micro_batch = 1;
  double compute_scale = 1;
};

// The work of one compute task (forward, recompute, backward or update) of `model`.
//  - forward and recompute: each forward product of the operator with the micro-batch's samples stacked into
//    m (per-sample products, attention scores and values, into the batch), a slice computing its
//    slice_fraction of every product's output columns n; element-wise bytes = the activations the operator
//    keeps per sample x samples x fraction (each written once: norms, activations, softmax, dropout).
//  - backward: per forward product C = A B, dA = dC B^T (m x k from n) and dB = A^T dC (k x n from m), twice
//    the forward FLOPs as the cost model counts; element-wise bytes twice the forward's.
//  - update: no product; element-wise bytes 2 x the owned state bytes (read and written once, as the cost
//    model's update_seconds assumes).
// Throws std::invalid_argument for an operator with FLOPs but no product shapes (a model given as a list).
KernelWork kernel_work(const Model& model, const Task& task, const WorkScale& scale);

// The distinct product shapes (batch, m, n, k) of every compute task of `program`, sorted by shape, each
// named by the first task that runs it: the GEMM micro-benchmark's list.
std::vector<Gemm> distinct_gemms(const Model& model, const IterationProgram& program, const WorkScale& scale);

}  // namespace shardscope::validate

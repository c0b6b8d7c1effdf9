// Eigen GEMMs over Map-ed scratch, and the element-wise and copy loops.
#include "validate/cpu/eigen_kernels.hpp"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <cstring>

namespace shardscope::validate {

namespace {

using Matrix = Eigen::Map<Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>>;

void grow(std::vector<float>& buffer, double elements) {
  const auto n = static_cast<std::size_t>(std::max(1.0, std::ceil(elements)));
  if (buffer.size() < n) buffer.assign(n, 0.5f);
}

std::size_t elements_of(double bytes) { return static_cast<std::size_t>(std::max(1.0, bytes / 4)); }

}  // namespace

void EigenKernels::reserve(const Gemm& g) {
  grow(a_, static_cast<double>(g.m) * static_cast<double>(g.k));
  grow(b_, static_cast<double>(g.k) * static_cast<double>(g.n));
  grow(c_, static_cast<double>(g.m) * static_cast<double>(g.n));
}

void EigenKernels::reserve_bytes(double bytes) {
  grow(x_, bytes / 12 + 1);
  grow(y_, bytes / 12 + 1);
}

void EigenKernels::gemm(const Gemm& g) {
  reserve(g);
  const Matrix a(a_.data(), g.m, g.k);
  const Matrix b(b_.data(), g.k, g.n);
  Matrix c(c_.data(), g.m, g.n);
  for (std::int64_t i = 0; i < g.batch; ++i) c.noalias() = a * b;
}

void EigenKernels::elementwise(double bytes) {
  if (bytes <= 0) return;
  // Three 4-byte accesses per element: 12 bytes moved.
  const std::size_t n = std::max<std::size_t>(1, static_cast<std::size_t>(bytes / 12));
  reserve_bytes(bytes);
  float* y = y_.data();
  const float* x = x_.data();
  for (std::size_t i = 0; i < n; ++i) y[i] = 0.999f * x[i] + y[i];
}

void EigenKernels::copy(double bytes) {
  if (bytes <= 0) return;
  const std::size_t n = std::max<std::size_t>(1, elements_of(bytes / 2));
  grow(x_, static_cast<double>(n));
  grow(y_, static_cast<double>(n));
  std::memcpy(y_.data(), x_.data(), n * sizeof(float));
}

}  // namespace shardscope::validate

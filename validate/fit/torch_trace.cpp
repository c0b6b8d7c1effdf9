// Kineto trace events: cpu_op events carry the shapes ("Input Dims", "Input type") and collective sizes
// (record_param_comms), kernel events the GPU times; a kernel's "External id" names the op that launched it.
#include "validate/fit/torch_trace.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "planner/core/error.hpp"
#if SHARDSCOPE_HAVE_ZLIB
#include <zlib.h>
#endif

namespace shardscope::fit {

namespace {

constexpr std::uintmax_t kMaxTraceBytes = std::uintmax_t{2} << 30;  // 2 GiB of JSON text

using Json = nlohmann::json;

struct Op {
  std::string name;
  const Json* args = nullptr;
  std::size_t index = 0;
};

struct Kernel {
  std::string name;
  double start = 0, end = 0;  // microseconds
  std::int64_t stream = 0;
  std::int64_t external_id = 0;
  const Op* op = nullptr;  // the op of that External id, when the trace has it
  std::size_t index = 0;
};

std::string at(std::size_t i, const std::string& rest = "") {
  return "traceEvents[" + std::to_string(i) + "]" + (rest.empty() ? "" : "." + rest);
}

std::string dtype_of(const std::string& torch_type) {
  if (torch_type.find("BFloat16") != std::string::npos) return "bfloat16";
  if (torch_type.find("Half") != std::string::npos) return "float16";
  if (torch_type == "float") return "float32";
  if (torch_type == "double") return "float64";
  return torch_type;
}

// The dimensions list at args["Input Dims"][i] (empty when absent or not a list of integers).
std::vector<std::int64_t> dims(const Json& args, std::size_t i) {
  std::vector<std::int64_t> out;
  const auto d = args.find("Input Dims");
  if (d == args.end() || !d->is_array() || i >= d->size() || !(*d)[i].is_array()) return out;
  for (const Json& v : (*d)[i]) {
    if (!v.is_number_integer()) return {};
    out.push_back(v.get<std::int64_t>());
  }
  return out;
}

// mm [M,K][K,N]; addmm [bias][M,K][K,N]; bmm [B,M,K][B,K,N]; baddbmm [C][B,M,K][B,K,N] -> (batch, m, n, k).
bool product_shape(const Op& op, GemmSample& g) {
  const bool add = op.name == "aten::addmm" || op.name == "aten::baddbmm";
  const bool batched = op.name == "aten::bmm" || op.name == "aten::baddbmm";
  if (!add && !batched && op.name != "aten::mm") return false;
  const std::vector<std::int64_t> a = dims(*op.args, add ? 1 : 0), b = dims(*op.args, add ? 2 : 1);
  const std::size_t rank = batched ? 3 : 2;
  if (a.size() != rank || b.size() != rank || a[rank - 1] != b[rank - 2] || (batched && a[0] != b[0])) {
    throw InputError("", 0, "Input Dims",
                     op.name + "'s operands are not a product's (" +
                         (batched ? "[B,M,K] and [B,K,N]" : "[M,K] and [K,N]") + ")");
  }
  g.batch = batched ? a[0] : 1;
  g.m = a[rank - 2];
  g.k = a[rank - 1];
  g.n = b[rank - 1];
  const auto types = op.args->find("Input type");
  g.dtype =
      types != op.args->end() && types->is_array() && !types->empty() && (*types)[add ? 1 : 0].is_string()
          ? dtype_of((*types)[add ? 1 : 0].get<std::string>())
          : "bfloat16";
  g.flops = 2.0 * static_cast<double>(g.batch * g.m) * static_cast<double>(g.n * g.k);
  return g.flops > 0;
}

bool is_attention(const std::string& op) {
  return op.find("flash_attention") != std::string::npos ||
         op.find("efficient_attention") != std::string::npos ||
         op.find("cudnn_attention") != std::string::npos ||
         op.find("scaled_dot_product") != std::string::npos;
}

// record_param_comms' collective: kind and nccl-tests' size (all-reduce: the per-rank buffer; gather and
// scatter: the total).
bool collective_of(const Op& op, CollectiveSample& s) {
  const Json& a = *op.args;
  const auto name = a.find("Collective name");
  if (name == a.end() || !name->is_string()) return false;
  const std::string c = name->get<std::string>();
  if (c.find("allreduce") != std::string::npos || c.find("all_reduce") != std::string::npos) {
    s.op = CollectiveKind::all_reduce;
  } else if (c.find("allgather") != std::string::npos || c.find("all_gather") != std::string::npos) {
    s.op = CollectiveKind::all_gather;
  } else if (c.find("reduce_scatter") != std::string::npos || c.find("reducescatter") != std::string::npos) {
    s.op = CollectiveKind::reduce_scatter;
  } else {
    return false;
  }
  const auto number = [&](const char* key) {
    const auto v = a.find(key);
    return v != a.end() && v->is_number() ? v->get<double>() : -1.0;
  };
  const double in = number("In msg nelems"), out = number("Out msg nelems"), group = number("Group size");
  const auto dtype = a.find("dtype");
  const std::string t = dtype != a.end() && dtype->is_string() ? dtype->get<std::string>() : "";
  const double element = t == "Float" ? 4 : t == "BFloat16" || t == "Half" ? 2 : t == "Double" ? 8 : 0;
  if (in < 0 || out < 0 || group < 2 || element == 0) return false;
  s.group = GroupKind::global;
  s.group_size = static_cast<int>(group);
  s.bytes = element * (s.op == CollectiveKind::all_gather ? out : in);
  return s.bytes > 0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

using Shape = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t, std::string>;

// The trace's cpu_op events by External id and its kernels, each kernel linked to its op when present.
struct TraceEvents {
  std::map<std::int64_t, Op> ops;
  std::vector<Kernel> kernels;
};

// The products that ran beside one collective's kernel, and each product shape's times when it ran alone.
struct Beside {
  const Kernel* comm;
  std::vector<std::pair<Shape, double>> products;
};
struct ProductTimes {
  std::map<Shape, std::vector<double>> alone;
  std::vector<Beside> beside;
};

// The cpu_op and kernel events of `events` (which must outlive the result: ops point into it).
TraceEvents read_events(const Json& events, const std::string& file) {
  TraceEvents out;
  for (std::size_t i = 0; i < events.size(); ++i) {
    const Json& e = events[i];
    if (!e.is_object()) throw InputError(file, 0, at(i), "expected an event object");
    const auto cat = e.find("cat"), args = e.find("args");
    if (cat == e.end() || !cat->is_string() || args == e.end() || !args->is_object()) continue;
    const auto id = args->find("External id");
    if (id == args->end() || !id->is_number_integer()) continue;
    const std::string category = cat->get<std::string>();
    const auto name = e.find("name");
    if (name == e.end() || !name->is_string())
      throw InputError(file, 0, at(i, "name"), "expected the event's name");
    if (category == "cpu_op") {
      out.ops[id->get<std::int64_t>()] = {name->get<std::string>(), &*args, i};
    } else if (category == "kernel") {
      const auto ts = e.find("ts"), dur = e.find("dur");
      if (ts == e.end() || !ts->is_number() || dur == e.end() || !dur->is_number() || dur->get<double>() < 0)
        throw InputError(file, 0, at(i, "dur"),
                         "expected a kernel's ts and a non-negative dur (microseconds)");
      const auto stream = args->find("stream");
      out.kernels.push_back(
          {name->get<std::string>(), ts->get<double>(), ts->get<double>() + dur->get<double>(),
           stream != args->end() && stream->is_number_integer() ? stream->get<std::int64_t>() : 0,
           id->get<std::int64_t>(), nullptr, i});
    }
  }
  if (out.kernels.empty()) {
    throw InputError(
        file, 0, "traceEvents",
        "no kernel events: record the trace with ProfilerActivity.CUDA (and record_shapes=True)");
  }
  return out;
}

// Counts every kernel and records the collectives' (NCCL kernels launched by record_param_comms); returns
// the collectives' kernels, in trace order.
std::vector<const Kernel*> record_collectives(const std::vector<Kernel>& kernels, TraceSummary& sum,
                                              Measurements& m) {
  std::vector<const Kernel*> comms;
  for (const Kernel& k : kernels) {
    sum.kernels++;
    sum.kernel_seconds += (k.end - k.start) * 1e-6;
    if (k.name.rfind("nccl", 0) != 0) continue;
    comms.push_back(&k);
    sum.nccl_kernels++;
    sum.nccl_seconds += (k.end - k.start) * 1e-6;
    CollectiveSample s;
    if (k.op && collective_of(*k.op, s)) {
      s.time_seconds = (k.end - k.start) * 1e-6;
      s.index = m.collectives.size();
      if (s.time_seconds > 0) m.collectives.push_back(s);
    }
  }
  return comms;
}

// An attention kernel's time, summed per op name (its query's first four dimensions kept).
void add_attention(const Kernel& k, std::map<std::string, std::size_t>& attention_at, TraceSummary& sum) {
  auto [it, fresh] = attention_at.emplace(k.op->name, sum.attention.size());
  if (fresh) sum.attention.push_back({k.op->name, {}, 0, 0});
  TraceAttention& a = sum.attention[it->second];
  for (std::int64_t d : dims(*k.op->args, 0)) a.query.push_back(static_cast<long>(d));
  if (a.query.size() > 4) a.query.resize(4);
  a.seconds += (k.end - k.start) * 1e-6;
  a.kernels++;
}

// The products' kernels: those that overlap a collective's kernel on another stream are kept beside it, the
// others are times of their shape alone. Attention kernels are summed apart.
ProductTimes sort_products(const std::vector<Kernel>& kernels, const std::vector<const Kernel*>& comms,
                           const std::string& file, TraceSummary& sum) {
  ProductTimes out;
  std::map<std::string, std::size_t> attention_at;
  out.beside.resize(comms.size());
  for (std::size_t c = 0; c < comms.size(); ++c) out.beside[c].comm = comms[c];
  for (const Kernel& k : kernels) {
    if (!k.op) continue;
    if (is_attention(k.op->name)) {
      add_attention(k, attention_at, sum);
      continue;
    }
    GemmSample g;
    try {
      if (!product_shape(*k.op, g)) continue;
    } catch (const InputError& e) {
      throw InputError(file, 0, at(k.op->index, "args.Input Dims"), e.what());
    }
    sum.product_kernels++;
    sum.product_seconds += (k.end - k.start) * 1e-6;
    const Shape shape{g.batch, g.m, g.n, g.k, g.dtype};
    bool overlapped = false;
    for (Beside& b : out.beside) {
      if (b.comm->stream == k.stream || b.comm->end <= k.start || k.end <= b.comm->start) continue;
      b.products.emplace_back(shape, (k.end - k.start) * 1e-6);
      overlapped = true;
    }
    if (overlapped) {
      sum.overlapped_product_kernels++;
    } else {
      out.alone[shape].push_back((k.end - k.start) * 1e-6);
    }
  }
  return out;
}

// One GEMM sample per shape that ran alone: its median time.
void add_gemm_samples(const std::map<Shape, std::vector<double>>& alone, Measurements& m) {
  for (const auto& [shape, times] : alone) {
    GemmSample g;
    std::tie(g.batch, g.m, g.n, g.k, g.dtype) = shape;
    g.flops = 2.0 * static_cast<double>(g.batch * g.m) * static_cast<double>(g.n * g.k);
    g.time_seconds = median(times);
    g.operator_kind = OperatorKind::other;  // a trace names no operator kinds
    g.index = m.gemms.size();
    if (g.time_seconds > 0) m.gemms.push_back(g);
  }
}

// Beside each collective: its products' time against the same shapes' median alone.
void add_overlap_samples(const ProductTimes& products, Measurements& m) {
  for (const Beside& b : products.beside) {
    OverlapSample o;
    for (const auto& [shape, seconds] : b.products) {
      const auto it = products.alone.find(shape);
      if (it == products.alone.end())
        continue;  // a shape that never ran alone says nothing about its slowdown
      o.compute_alone_seconds += median(it->second);
      o.compute_with_comm_seconds += seconds;
    }
    if (o.compute_alone_seconds <= 0) continue;
    o.comm_alone_seconds = o.comm_with_compute_seconds = (b.comm->end - b.comm->start) * 1e-6;
    o.index = m.overlap.size();
    m.overlap.push_back(o);
  }
}

}  // namespace

Measurements parse_torch_trace(const std::string& text, const std::string& file, TraceSummary* summary) {
  Json doc;
  try {
    doc = Json::parse(text);
  } catch (const Json::parse_error& e) {
    throw InputError(file, 0, "", std::string("not JSON: ") + e.what());
  }
  const auto events = doc.is_object() ? doc.find("traceEvents") : doc.end();
  if (events == doc.end() || !events->is_array())
    throw InputError(file, 0, "traceEvents", "expected a Chrome trace (an object with a traceEvents list)");
  TraceEvents trace = read_events(*events, file);
  for (Kernel& k : trace.kernels) {
    const auto it = trace.ops.find(k.external_id);
    k.op = it == trace.ops.end() ? nullptr : &it->second;
  }
  TraceSummary local;
  TraceSummary& sum = summary ? *summary : local;
  sum = {};
  Measurements m;
  m.file = file;
  m.machine.backend = "torch-trace";
  // The collectives' kernels first: products that overlap one of them are overlap samples, not rates.
  const std::vector<const Kernel*> comms = record_collectives(trace.kernels, sum, m);
  const ProductTimes products = sort_products(trace.kernels, comms, file, sum);
  add_gemm_samples(products.alone, m);
  add_overlap_samples(products, m);
  return m;
}

namespace {

std::string read_trace_text(const std::string& path) {
  const bool gz = path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  if (!gz) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, 0, "", "cannot open the trace");
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxTraceBytes)
      throw InputError(path, 0, "", "the trace is over 2 GiB of JSON: record fewer steps");
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }
#if SHARDSCOPE_HAVE_ZLIB
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) throw InputError(path, 0, "", "cannot open the trace");
  std::string text;
  char buffer[1 << 16];
  for (int n; (n = gzread(f, buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<std::size_t>(n));
    if (text.size() > kMaxTraceBytes) {
      gzclose(f);
      throw InputError(path, 0, "", "the trace is over 2 GiB of JSON once decompressed: record fewer steps");
    }
  }
  int error = 0;
  const char* message = gzerror(f, &error);
  const std::string reason = error != Z_OK && error != Z_STREAM_END ? message : "";
  gzclose(f);
  if (!reason.empty()) throw InputError(path, 0, "", "not a gzip file or a damaged one: " + reason);
  return text;
#else
  throw InputError(path, 0, "", "this build reads .gz traces only with zlib: decompress it (gunzip) first");
#endif
}

}  // namespace

Measurements load_torch_trace(const std::string& path, TraceSummary* summary) {
  return parse_torch_trace(read_trace_text(path), path, summary);
}

}  // namespace shardscope::fit

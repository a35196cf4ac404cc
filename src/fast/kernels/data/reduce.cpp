// REDUCE_ALL/ANY/MAX/MIN/PRODUCT/SUM (spec 2.9) along one axis, every type TOSA 1.0 defines. The input is
// viewed as [outer, axis, inner]: reducing the last axis (inner == 1) walks each row horizontally; reducing
// another axis accumulates whole rows of `inner` contiguous elements (vectorized across the row).
//
// Exactness — every result is the reference's, bit for bit:
// - integers: max/min are order-free; i32 sums run in int64 in the spec's order and every partial sum is
//   checked against the i32 range (the spec's REQUIRE in apply_add_s): an overflow reruns the step on the
//   reference kernel, which gives the verdict.
// - fp32 sum/product: sequential fp32 operations in the spec's order (the reference rounds each fp64 result
//   to fp32, which is the correctly rounded fp32 operation): the inner-axis case keeps rows independent and
//   interleaves 8 rows, the middle-axis case is naturally elementwise across the row. Nothing is reordered
//   (and nothing contracted into an FMA: -ffp-contract=off). A NaN result is the canonical NaN, as the
//   reference's rounding function returns it.
// - fp32 max/min: order matters only for NaN and signed zeros. NaN: PROPAGATE gives the canonical NaN when
//   any input is NaN; IGNORE skips NaNs and an all-NaN reduction gives the last NaN (quieted), as the
//   reference's fp64 round trip does. Zeros: apply_max_f keeps the first of equal values and apply_min_f the
//   later one, so a horizontally vectorized max/min whose result is zero takes its sign from the first
//   (max) / last (min) zero of the row.
// - fp16/bf16: the reference's fp64 steps and roundings literally (bf16 sums accumulate in fp32).
// Threads split only along non-reduced axes, so results do not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/numeric.h"
#include "fast/isa_dispatch.h"
#include "fast/kernels/common.h"
#include "fast/op_kernel.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

enum class Rd { All, Any, Max, Min, Product, Sum };

struct Geometry {
  int64_t outer = 1, axis = 1, inner = 1;
};

constexpr int64_t kBlock = 512;           // elements of a row block in the middle-axis case
constexpr int64_t kParallelWork = 65536;  // input elements below which one thread does it all

// Runs f(item) for item in [0, items), split over the OpenMP threads when the work is large.
template <typename F>
void forItems(int64_t items, int64_t work, F&& f) {
  parallelItems(items, work > kParallelWork, f);
}

// Middle-axis driver: for each outer index and block of the inner row, f(src, dst, n) where src points at
// element 0 of the axis (stride inner between axis elements) and dst at the n outputs.
template <typename T, typename O, typename F>
void forRowBlocks(const Geometry& g, const T* in, O* out, F&& f) {
  const int64_t blocks = (g.inner + kBlock - 1) / kBlock;
  forItems(g.outer * blocks, g.outer * g.axis * g.inner, [&](int64_t item) {
    const int64_t l = item / blocks, r0 = (item % blocks) * kBlock, n = std::min(kBlock, g.inner - r0);
    f(in + l * g.axis * g.inner + r0, out + l * g.inner + r0, n);
  });
}

// ---- bool ----
TK_VECTOR_BODY void boolRowsBody(const uint8_t* __restrict x, uint8_t* __restrict acc, int64_t n, int all) {
  if (all)
    for (int64_t j = 0; j < n; ++j) acc[j] = uint8_t(acc[j] & uint8_t(x[j] != 0));
  else
    for (int64_t j = 0; j < n; ++j) acc[j] = uint8_t(acc[j] | uint8_t(x[j] != 0));
}
void boolRows(const uint8_t* __restrict x, uint8_t* __restrict acc, int64_t n, int all) {
  TK_ISA_DISPATCH(boolRowsBody(x, acc, n, all));
}

void reduceBool(const Geometry& g, const uint8_t* in, uint8_t* out, bool all) {
  if (g.inner == 1) {
    forItems(g.outer, g.outer * g.axis, [&](int64_t l) {
      const uint8_t* row = in + l * g.axis;
      int32_t seen = 0;  // all: a false value seen; any: a true value seen
      if (all)
        for (int64_t i = 0; i < g.axis; ++i) seen |= int32_t(row[i] == 0);
      else
        for (int64_t i = 0; i < g.axis; ++i) seen |= int32_t(row[i] != 0);
      out[l] = all ? uint8_t(!seen) : uint8_t(seen != 0);
    });
    return;
  }
  forRowBlocks(g, in, out, [&](const uint8_t* src, uint8_t* dst, int64_t n) {
    std::fill(dst, dst + n, uint8_t(all ? 1 : 0));
    for (int64_t i = 0; i < g.axis; ++i) boolRows(src + i * g.inner, dst, n, all);
  });
}

// ---- integer max/min ----
template <typename T>
TK_VECTOR_BODY void intExtremeRowBody(const T* __restrict x, T* __restrict acc, int64_t n, int isMax) {
  if (isMax)
    for (int64_t j = 0; j < n; ++j) acc[j] = acc[j] >= x[j] ? acc[j] : x[j];
  else
    for (int64_t j = 0; j < n; ++j) acc[j] = acc[j] < x[j] ? acc[j] : x[j];
}
template <typename T>
void intExtremeRow(const T* __restrict x, T* __restrict acc, int64_t n, int isMax) {
  TK_ISA_DISPATCH(intExtremeRowBody<T>(x, acc, n, isMax));
}

// A whole row into L lanes (element i into lane i % L): one call per row, the lane loop vectorized.
template <typename T, int64_t L>
TK_VECTOR_BODY void intExtremeLanesBody(const T* __restrict x, int64_t n, T* __restrict lanes, int isMax) {
  int64_t i = 0;
  if (isMax) {
    for (; i + L <= n; i += L)
      for (int64_t j = 0; j < L; ++j) lanes[j] = lanes[j] >= x[i + j] ? lanes[j] : x[i + j];
  } else {
    for (; i + L <= n; i += L)
      for (int64_t j = 0; j < L; ++j) lanes[j] = lanes[j] < x[i + j] ? lanes[j] : x[i + j];
  }
  intExtremeRowBody<T>(x + i, lanes, n - i, isMax);
}
template <typename T, int64_t L>
void intExtremeLanes(const T* __restrict x, int64_t n, T* __restrict lanes, int isMax) {
  TK_ISA_DISPATCH(intExtremeLanesBody<T, L>(x, n, lanes, isMax));
}

template <typename T>
void reduceIntExtreme(const Geometry& g, const T* in, T* out, bool isMax) {
  const T init = isMax ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
  if (g.inner == 1) {
    constexpr int64_t L = 32;  // lanes: element i goes to lane i % L (max/min of integers is order-free)
    forItems(g.outer, g.outer * g.axis, [&](int64_t l) {
      const T* row = in + l * g.axis;
      T lanes[L];
      std::fill(lanes, lanes + L, init);
      intExtremeLanes<T, L>(row, g.axis, lanes, isMax);
      T acc = init;
      for (int64_t j = 0; j < L; ++j) acc = isMax ? std::max(acc, lanes[j]) : std::min(acc, lanes[j]);
      out[l] = acc;
    });
    return;
  }
  forRowBlocks(g, in, out, [&](const T* src, T* dst, int64_t n) {
    std::fill(dst, dst + n, init);
    for (int64_t i = 0; i < g.axis; ++i) intExtremeRow<T>(src + i * g.inner, dst, n, isMax);
  });
}

// ---- i32 sum: int64 partial sums, each checked against the i32 range ----
TK_VECTOR_BODY int64_t intSumRowsBody(const int32_t* __restrict x, int64_t* __restrict acc, int64_t n) {
  constexpr int64_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  int64_t bad = 0;
  for (int64_t j = 0; j < n; ++j) {
    const int64_t v = acc[j] + int64_t(x[j]);
    bad |= int64_t(v < lo) | int64_t(v > hi);
    acc[j] = v;
  }
  return bad;
}
int64_t intSumRows(const int32_t* __restrict x, int64_t* __restrict acc, int64_t n) {
  TK_ISA_DISPATCH(intSumRowsBody(x, acc, n));
}

bool reduceIntSum(const Geometry& g, const int32_t* in, int32_t* out) {
  constexpr int64_t lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  if (g.inner == 1) {
    return parallelItems(g.outer, g.outer * g.axis > kParallelWork, [&](int64_t l) {
      const int32_t* row = in + l * g.axis;
      int64_t acc = 0, b = 0;
      for (int64_t i = 0; i < g.axis; ++i) {
        acc += row[i];
        b |= int64_t(acc < lo) | int64_t(acc > hi);
      }
      out[l] = int32_t(acc);
      return b == 0;
    });
  }
  const int64_t blocks = (g.inner + kBlock - 1) / kBlock;
  return parallelItems(g.outer * blocks, g.outer * g.axis * g.inner > kParallelWork, [&](int64_t item) {
    const int64_t l = item / blocks, r0 = (item % blocks) * kBlock, n = std::min(kBlock, g.inner - r0);
    const int32_t* src = in + l * g.axis * g.inner + r0;
    int64_t acc[kBlock] = {};
    int64_t b = 0;
    for (int64_t i = 0; i < g.axis; ++i) b |= intSumRows(src + i * g.inner, acc, n);
    for (int64_t j = 0; j < n; ++j) out[l * g.inner + r0 + j] = int32_t(acc[j]);
    return b == 0;
  });
}

// ---- fp32 sum / product: sequential in the spec's order ----
TK_VECTOR_BODY void f32SeqRowsBody(const float* __restrict x, float* __restrict acc, int64_t n, int isSum) {
  if (isSum)
    for (int64_t j = 0; j < n; ++j) acc[j] = acc[j] + x[j];
  else
    for (int64_t j = 0; j < n; ++j) acc[j] = acc[j] * x[j];
}
void f32SeqRows(const float* __restrict x, float* __restrict acc, int64_t n, int isSum) {
  TK_ISA_DISPATCH(f32SeqRowsBody(x, acc, n, isSum));
}

// Eight rows of `axis` elements, each summed (multiplied) in its own order: eight independent chains.
TK_VECTOR_BODY void f32SeqBlock8Body(const float* __restrict rows, int64_t axis, float* __restrict out, float init,
                                     int isSum) {
  float acc[8];
  for (int r = 0; r < 8; ++r) acc[r] = init;
  if (isSum) {
    for (int64_t i = 0; i < axis; ++i)
      for (int r = 0; r < 8; ++r) acc[r] = acc[r] + rows[r * axis + i];
  } else {
    for (int64_t i = 0; i < axis; ++i)
      for (int r = 0; r < 8; ++r) acc[r] = acc[r] * rows[r * axis + i];
  }
  for (int r = 0; r < 8; ++r) out[r] = acc[r];
}
void f32SeqBlock8(const float* __restrict rows, int64_t axis, float* __restrict out, float init, int isSum) {
  TK_ISA_DISPATCH(f32SeqBlock8Body(rows, axis, out, init, isSum));
}

void reduceF32Seq(const Geometry& g, const float* in, float* out, bool isSum) {
  const float init = isSum ? 0.0f : 1.0f;
  if (g.inner == 1) {
    // Eight rows at a time: eight independent sequential chains (each row keeps the spec's order).
    constexpr int64_t R = 8;
    const int64_t blocks = (g.outer + R - 1) / R;
    forItems(blocks, g.outer * g.axis, [&](int64_t b) {
      const int64_t r0 = b * R, nr = std::min(R, g.outer - r0);
      const float* rows = in + r0 * g.axis;
      if (nr < R) {
        for (int64_t r = 0; r < nr; ++r) {
          float acc = init;
          for (int64_t i = 0; i < g.axis; ++i) acc = isSum ? acc + rows[r * g.axis + i] : acc * rows[r * g.axis + i];
          out[r0 + r] = acc;
        }
        return;
      }
      f32SeqBlock8(rows, g.axis, out + r0, init, isSum);
    });
    return;
  }
  forRowBlocks(g, in, out, [&](const float* src, float* dst, int64_t n) {
    std::fill(dst, dst + n, init);
    for (int64_t i = 0; i < g.axis; ++i) f32SeqRows(src + i * g.inner, dst, n, isSum);
  });
}

// The reference rounds every partial result with roundToFloat, which maps any NaN to the canonical one.
TK_VECTOR_BODY void canonicalNaNBody(float* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i) p[i] = p[i] == p[i] ? p[i] : std::numeric_limits<float>::quiet_NaN();
}
void canonicalNaN(float* p, int64_t n) { TK_ISA_DISPATCH(canonicalNaNBody(p, n)); }

// ---- fp32 max / min ----
// One step of apply_max_f / apply_min_f with NaN inputs skipped (their effect is applied afterwards from the
// flags): max keeps acc on ties (a >= b ? a : b), min takes the new value (a < b ? a : b).
TK_VECTOR_BODY void f32ExtremeRowsBody(const float* __restrict x, float* __restrict acc, int32_t* __restrict nan,
                                       int32_t* __restrict number, int64_t n, int isMax) {
  if (isMax) {
    for (int64_t j = 0; j < n; ++j) {
      const float v = x[j], a = acc[j];
      const int32_t isNan = int32_t(v != v);
      const float m = a >= v ? a : v;
      acc[j] = isNan ? a : m;
      nan[j] |= isNan;
      number[j] |= 1 - isNan;
    }
  } else {
    for (int64_t j = 0; j < n; ++j) {
      const float v = x[j], a = acc[j];
      const int32_t isNan = int32_t(v != v);
      const float m = a < v ? a : v;
      acc[j] = isNan ? a : m;
      nan[j] |= isNan;
      number[j] |= 1 - isNan;
    }
  }
}
void f32ExtremeRows(const float* __restrict x, float* __restrict acc, int32_t* __restrict nan,
                    int32_t* __restrict number, int64_t n, int isMax) {
  TK_ISA_DISPATCH(f32ExtremeRowsBody(x, acc, nan, number, n, isMax));
}

template <int64_t L>
TK_VECTOR_BODY void f32ExtremeLanesBody(const float* __restrict x, int64_t n, float* __restrict lanes,
                                        int32_t* __restrict nan, int32_t* __restrict number, int isMax) {
  int64_t i = 0;
  for (; i + L <= n; i += L) {
    for (int64_t j = 0; j < L; ++j) {
      const float v = x[i + j], a = lanes[j];
      const int32_t isNan = int32_t(v != v);
      const float m = isMax ? (a >= v ? a : v) : (a < v ? a : v);
      lanes[j] = isNan ? a : m;
      nan[j] |= isNan;
      number[j] |= 1 - isNan;
    }
  }
  f32ExtremeRowsBody(x + i, lanes, nan, number, n - i, isMax);
}
template <int64_t L>
void f32ExtremeLanes(const float* __restrict x, int64_t n, float* __restrict lanes, int32_t* __restrict nan,
                     int32_t* __restrict number, int isMax) {
  TK_ISA_DISPATCH(f32ExtremeLanesBody<L>(x, n, lanes, nan, number, isMax));
}

float quietNaN(float v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  b |= 0x00400000u;
  std::memcpy(&v, &b, 4);
  return v;
}

// The NaN rules of the spec applied to one result: `last` is the last input of the reduction.
float finishExtreme(float acc, bool sawNaN, bool sawNumber, bool ignore, float last) {
  if (!ignore && sawNaN) return std::numeric_limits<float>::quiet_NaN();
  if (ignore && !sawNumber) return quietNaN(last);
  return acc;
}

void reduceF32Extreme(const Geometry& g, const float* in, float* out, bool isMax, bool ignore) {
  const float init = isMax ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
  if (g.inner == 1) {
    constexpr int64_t L = 16;
    forItems(g.outer, g.outer * g.axis, [&](int64_t l) {
      const float* row = in + l * g.axis;
      float lanes[L];
      int32_t nan[L] = {}, number[L] = {};
      std::fill(lanes, lanes + L, init);
      f32ExtremeLanes<L>(row, g.axis, lanes, nan, number, isMax);
      float acc = init;
      int32_t sawNaN = 0, sawNumber = 0;
      for (int64_t j = 0; j < L; ++j) {
        acc = isMax ? (acc >= lanes[j] ? acc : lanes[j]) : (acc < lanes[j] ? acc : lanes[j]);
        sawNaN |= nan[j];
        sawNumber |= number[j];
      }
      if (acc == 0) {  // the sign of a zero result: the first (max) or last (min) zero of the row
        if (isMax) {
          for (int64_t k = 0; k < g.axis; ++k)
            if (row[k] == 0) {
              acc = row[k];
              break;
            }
        } else {
          for (int64_t k = g.axis - 1; k >= 0; --k)
            if (row[k] == 0) {
              acc = row[k];
              break;
            }
        }
      }
      out[l] = finishExtreme(acc, sawNaN != 0, sawNumber != 0, ignore, row[g.axis - 1]);
    });
    return;
  }
  forRowBlocks(g, in, out, [&](const float* src, float* dst, int64_t n) {
    int32_t nan[kBlock] = {}, number[kBlock] = {};
    std::fill(dst, dst + n, init);
    for (int64_t i = 0; i < g.axis; ++i) f32ExtremeRows(src + i * g.inner, dst, nan, number, n, isMax);
    const float* last = src + (g.axis - 1) * g.inner;
    for (int64_t j = 0; j < n; ++j) dst[j] = finishExtreme(dst[j], nan[j] != 0, number[j] != 0, ignore, last[j]);
  });
}

// ---- fp16 / bf16: the reference's fp64 steps literally ----
double extremeF(double a, double b, bool isMax, bool ignore) {
  if (std::isnan(a) || std::isnan(b))
    return ignore ? (std::isnan(a) ? b : a) : std::numeric_limits<double>::quiet_NaN();
  return isMax ? (a >= b ? a : b) : (a < b ? a : b);
}

void reduceF16(const Geometry& g, DType t, const uint16_t* in, uint16_t* out, Rd op, bool ignore) {
  const double inf = std::numeric_limits<double>::infinity();
  const DType accT = t == DType::BF16 ? DType::FP32 : t;  // REDUCE_SUM's acc_t
  forItems(g.outer * g.inner, g.outer * g.axis * g.inner, [&](int64_t item) {
    const int64_t l = item / g.inner, r = item % g.inner;
    const uint16_t* x = in + l * g.axis * g.inner + r;
    double acc = 0;
    switch (op) {
      case Rd::Max:
      case Rd::Min:
        acc = ignore ? std::numeric_limits<double>::quiet_NaN() : (op == Rd::Max ? -inf : inf);
        for (int64_t i = 0; i < g.axis; ++i)
          acc = extremeF(acc, decodeFloatBits(t, x[i * g.inner]), op == Rd::Max, ignore);
        break;
      case Rd::Product:
        acc = 1;
        for (int64_t i = 0; i < g.axis; ++i) acc = roundToFloat(t, acc * decodeFloatBits(t, x[i * g.inner]));
        break;
      default:  // Sum
        for (int64_t i = 0; i < g.axis; ++i) acc = roundToFloat(accT, acc + decodeFloatBits(t, x[i * g.inner]));
        break;
    }
    out[item] = uint16_t(encodeFloatBits(t, acc));
  });
}

class ReduceKernel : public OpKernel {
 public:
  ReduceKernel(Rd op, DType t, Geometry g, bool ignore) : op_(op), t_(t), g_(g), ignore_(ignore) {}
  std::string implName() const override { return "fast:reduce"; }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const void* x = in[0][0].data;
    void* y = out[0].data;
    const bool isMax = op_ == Rd::Max;
    switch (t_) {
      case DType::Bool:
        reduceBool(g_, static_cast<const uint8_t*>(x), static_cast<uint8_t*>(y), op_ == Rd::All);
        return Status::ok();
      case DType::I8:
        reduceIntExtreme(g_, static_cast<const int8_t*>(x), static_cast<int8_t*>(y), isMax);
        return Status::ok();
      case DType::I16:
        reduceIntExtreme(g_, static_cast<const int16_t*>(x), static_cast<int16_t*>(y), isMax);
        return Status::ok();
      case DType::I32:
        if (op_ == Rd::Sum)
          return reduceIntSum(g_, static_cast<const int32_t*>(x), static_cast<int32_t*>(y)) ? Status::ok()
                                                                                            : rerunOnReference();
        reduceIntExtreme(g_, static_cast<const int32_t*>(x), static_cast<int32_t*>(y), isMax);
        return Status::ok();
      case DType::FP32:
        if (op_ == Rd::Sum || op_ == Rd::Product) {
          reduceF32Seq(g_, static_cast<const float*>(x), static_cast<float*>(y), op_ == Rd::Sum);
          canonicalNaN(static_cast<float*>(y), g_.outer * g_.inner);
        } else
          reduceF32Extreme(g_, static_cast<const float*>(x), static_cast<float*>(y), isMax, ignore_);
        return Status::ok();
      default:  // FP16, BF16
        reduceF16(g_, t_, static_cast<const uint16_t*>(x), static_cast<uint16_t*>(y), op_, ignore_);
        return Status::ok();
    }
  }

 private:
  Rd op_;
  DType t_;
  Geometry g_;
  bool ignore_;
};

// The element types each reduction takes (spec 2.9 "Supported Data Types").
bool typeSupported(Rd op, DType t) {
  switch (op) {
    case Rd::All:
    case Rd::Any: return t == DType::Bool;
    case Rd::Max:
    case Rd::Min:
      return t == DType::I8 || t == DType::I16 || t == DType::I32 || t == DType::FP16 || t == DType::BF16 ||
          t == DType::FP32;
    case Rd::Product: return t == DType::FP16 || t == DType::BF16 || t == DType::FP32;
    case Rd::Sum: return t == DType::I32 || t == DType::FP16 || t == DType::BF16 || t == DType::FP32;
  }
  return false;
}

KernelFactory reduceFactory(Rd op) {
  return [op](const OpChain& chain) -> Result<CompiledKernel> {
    const ir::Operation& o = *chain.ops[0];
    if (o.operands.size() != 1 || o.results.size() != 1) return CompiledKernel{};
    const DType t = o.results[0]->type.dtype;
    if (o.operands[0]->type.dtype != t || !typeSupported(op, t)) return CompiledKernel{};
    const Shape& in = o.operands[0]->type.dims;
    const Shape& out = o.results[0]->type.dims;
    const int64_t axis = o.intAttr("axis", -1);
    if (axis < 0 || axis >= int64_t(in.size()) || out.size() != in.size() || out[size_t(axis)] != 1)
      return CompiledKernel{};
    Geometry g;
    for (size_t d = 0; d < in.size(); ++d) {
      if (int64_t(d) != axis && out[d] != in[d]) return CompiledKernel{};
      if (int64_t(d) < axis)
        g.outer *= in[d];
      else if (int64_t(d) > axis)
        g.inner *= in[d];
    }
    g.axis = in[size_t(axis)];
    if (numElements(in) == 0) return CompiledKernel{};  // empty reductions: the reference's initial values
    const bool ignore = o.strAttr("nan_mode", "PROPAGATE") == "IGNORE";
    CompiledKernel ck;
    ck.kernel = std::make_unique<ReduceKernel>(op, t, g, ignore);
    return ck;
  };
}

}  // namespace

Result<CompiledKernel> compileReduceAll(const OpChain& c) { return reduceFactory(Rd::All)(c); }
Result<CompiledKernel> compileReduceAny(const OpChain& c) { return reduceFactory(Rd::Any)(c); }
Result<CompiledKernel> compileReduceMax(const OpChain& c) { return reduceFactory(Rd::Max)(c); }
Result<CompiledKernel> compileReduceMin(const OpChain& c) { return reduceFactory(Rd::Min)(c); }
Result<CompiledKernel> compileReduceProduct(const OpChain& c) { return reduceFactory(Rd::Product)(c); }
Result<CompiledKernel> compileReduceSum(const OpChain& c) { return reduceFactory(Rd::Sum)(c); }

}  // namespace tosakit::fast

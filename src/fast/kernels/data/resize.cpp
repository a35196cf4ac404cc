// RESIZE (spec 2.12.1), NEAREST_NEIGHBOR and BILINEAR, every type pair of TOSA 1.0 (i8 -> i8/i32,
// i16 -> i16/i48, fp16, bf16, fp32), NHWC. Everything that depends only on shapes and attributes — for each
// output row and column the two source indices and the fraction (integer units, or the float fraction
// rounded to resize_t as the reference rounds it) — is computed once at compile time; a run is then a tight
// loop over channels.
//
// Exactness: integer results are the spec's integer arithmetic (bit-identical). fp32 results repeat the
// reference's float operations in the same order, each an fp32 operation (the reference computes each in
// fp64 and rounds once to fp32: for one + - * of two fp32 values that is the correctly rounded fp32
// result, i.e. the same number; this file is built with -ffp-contract=off, so no a*b+c becomes an FMA).
// fp16/bf16 bilinear repeats the reference's fp64-then-round steps literally. NEAREST_NEIGHBOR copies bytes.
// NaN results have the reference's bits too (its rounding function returns the canonical NaN).
// RESIZE has no data-dependent REQUIRE; the ERROR_IFs are the Session's validation — a resize whose
// attributes are not constant or break one of them is left to the reference kernel.
#include <algorithm>
#include <cstring>
#include <limits>

#include "core/numeric.h"
#include "fast/isa_dispatch.h"
#include "fast/op_kernel.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

struct Axis {              // one output coordinate along H or W
  int64_t i0 = 0, i1 = 0;  // source indices (clamped)
  int64_t d = 0;           // integer fraction (units of scale_n)
  double fd = 0;           // float fraction, rounded to resize_t
  int64_t nearest = 0;     // NEAREST_NEIGHBOR's source index
};

int64_t floorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

// The pseudocode's per-coordinate part of RESIZE, for one axis.
std::vector<Axis> axisTable(int64_t outSize, int64_t inSize, int64_t scaleN, int64_t scaleD, int64_t offset,
                            DType inT) {
  std::vector<Axis> t(static_cast<size_t>(outSize));
  const bool fp = isFloat(inT);
  for (int64_t o = 0; o < outSize; ++o) {
    const int32_t y = int32_t(o * scaleD + offset);
    const int16_t iy = int16_t(floorDiv(y, scaleN));
    const int16_t ry = int16_t(y - iy * scaleN);
    Axis& a = t[size_t(o)];
    a.i0 = std::max<int64_t>(iy, 0);
    a.i1 = std::min<int64_t>(iy + 1, inSize - 1);
    a.d = ry;
    if (fp) {
      a.fd = roundToFloat(inT, double(ry) / double(scaleN));
      a.nearest = a.fd >= 0.5 ? a.i1 : a.i0;
    } else {
      a.nearest = 2 * a.d >= scaleN ? a.i1 : a.i0;
    }
  }
  return t;
}

// out[c] = sum of four corner values times integer weights (exact; i8 -> i32 fits in int32: |v| <= 128 and
// the four weights sum to scale_y_n * scale_x_n <= 2^22).
template <typename In, typename Acc, typename Out>
TK_VECTOR_BODY void bilinearIntRowBody(const In* __restrict p00, const In* __restrict p01, const In* __restrict p10,
                                       const In* __restrict p11, Acc w00, Acc w01, Acc w10, Acc w11,
                                       Out* __restrict out, int64_t C) {
  for (int64_t c = 0; c < C; ++c)
    out[c] = Out(Acc(p00[c]) * w00 + Acc(p01[c]) * w01 + Acc(p10[c]) * w10 + Acc(p11[c]) * w11);
}
template <typename In, typename Acc, typename Out>
void bilinearIntRow(const In* __restrict p00, const In* __restrict p01, const In* __restrict p10,
                    const In* __restrict p11, Acc w00, Acc w01, Acc w10, Acc w11, Out* __restrict out, int64_t C) {
  TK_ISA_DISPATCH(bilinearIntRowBody<In, Acc, Out>(p00, p01, p10, p11, w00, w01, w10, w11, out, C));
}

// The reference's float order: acc = (v00*(1-dy))*(1-dx); acc += (v01*(1-dy))*dx; acc += (v10*dy)*(1-dx);
// acc += (v11*dy)*dx — every operation rounded to fp32.
TK_VECTOR_BODY void bilinearF32RowBody(const float* __restrict p00, const float* __restrict p01,
                                       const float* __restrict p10, const float* __restrict p11, float dy, float ody,
                                       float dx, float odx, float* __restrict out, int64_t C) {
  for (int64_t c = 0; c < C; ++c) {
    float acc = (p00[c] * ody) * odx;
    acc = acc + (p01[c] * ody) * dx;
    acc = acc + (p10[c] * dy) * odx;
    acc = acc + (p11[c] * dy) * dx;
    out[c] = acc == acc ? acc : std::numeric_limits<float>::quiet_NaN();  // R(NaN): the canonical NaN
  }
}
void bilinearF32Row(const float* __restrict p00, const float* __restrict p01, const float* __restrict p10,
                    const float* __restrict p11, float dy, float ody, float dx, float odx, float* __restrict out,
                    int64_t C) {
  TK_ISA_DISPATCH(bilinearF32RowBody(p00, p01, p10, p11, dy, ody, dx, odx, out, C));
}

// NEAREST_NEIGHBOR on floats copies values through the reference's fp64 round trip: an fp32 NaN keeps its
// payload but is quieted, an fp16/bf16 NaN becomes the format's canonical NaN. Input NaNs are rare, so the
// copy is plain bytes and this pass runs only when the input has one.
TK_VECTOR_BODY int64_t countNaN32Body(const uint32_t* p, int64_t n) {
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) k += int64_t((p[i] & 0x7fffffffu) > 0x7f800000u);
  return k;
}
int64_t countNaN32(const uint32_t* p, int64_t n) { TK_ISA_DISPATCH(countNaN32Body(p, n)); }
TK_VECTOR_BODY int64_t countNaN16Body(const uint16_t* p, int64_t n, uint16_t inf) {
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i) k += int64_t(uint16_t(p[i] & 0x7fffu) > inf);
  return k;
}
int64_t countNaN16(const uint16_t* p, int64_t n, uint16_t inf) { TK_ISA_DISPATCH(countNaN16Body(p, n, inf)); }
void canonicalizeNaN(DType t, void* data, int64_t n) {
  if (t == DType::FP32) {
    uint32_t* p = static_cast<uint32_t*>(data);
    for (int64_t i = 0; i < n; ++i)
      if ((p[i] & 0x7fffffffu) > 0x7f800000u) p[i] |= 0x00400000u;
    return;
  }
  const uint16_t inf = t == DType::FP16 ? 0x7c00 : 0x7f80, nan = uint16_t(floatFormat(t).quietNaN);
  uint16_t* p = static_cast<uint16_t*>(data);
  for (int64_t i = 0; i < n; ++i)
    if (uint16_t(p[i] & 0x7fffu) > inf) p[i] = nan;
}
bool hasNaN(DType t, const void* data, int64_t n) {
  if (t == DType::FP32) return countNaN32(static_cast<const uint32_t*>(data), n) != 0;
  if (t == DType::FP16) return countNaN16(static_cast<const uint16_t*>(data), n, 0x7c00) != 0;
  if (t == DType::BF16) return countNaN16(static_cast<const uint16_t*>(data), n, 0x7f80) != 0;
  return false;
}

// o[c] = s[c] + a[c] (resizedFirst) or a[c] + s[c]: one fp32 addition each, as tosa.add rounds it. o may be s
// (in place, after a NaN input: not restrict-qualified).
TK_VECTOR_BODY void addRowF32Body(const float* s, const float* a, float* o, int64_t n, bool resizedFirst) {
  if (resizedFirst)
    for (int64_t c = 0; c < n; ++c) o[c] = s[c] + a[c];
  else
    for (int64_t c = 0; c < n; ++c) o[c] = a[c] + s[c];
}
void addRowF32(const float* s, const float* a, float* o, int64_t n, bool resizedFirst) {
  TK_ISA_DISPATCH(addRowF32Body(s, a, o, n, resizedFirst));
}

class ResizeKernel : public OpKernel {
 public:
  ResizeKernel(DType inT, DType outT, bool bilinear, Shape in, Shape out, std::vector<Axis> ys, std::vector<Axis> xs,
               int64_t unitY, int64_t unitX)
      : inT_(inT),
        outT_(outT),
        bilinear_(bilinear),
        in_(std::move(in)),
        out_(std::move(out)),
        ys_(std::move(ys)),
        xs_(std::move(xs)),
        unitY_(unitY),
        unitX_(unitX) {}

  std::string implName() const override {
    return bilinear_ ? "fast:resize_bilinear" : fusedAdd_ ? "fast:resize_nearest+add" : "fast:resize_nearest";
  }

  // FPN's upsample-and-add (PP-OCR det): an fp32 NEAREST_NEIGHBOR resize whose only user is a tosa.add with a
  // full-size other operand (operand `other` of the add) is computed in one pass: the resized values are
  // never written and read back.
  void fuseAdd(int other) {
    fusedAdd_ = true;
    addOther_ = other;
  }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const void* src = in[0][0].data;
    void* dst = out[0].data;
    if (fusedAdd_) {
      const float* a = in[1][size_t(addOther_)].as<const float>();
      if (!hasNaN(inT_, src, numElements(in_))) {
        nearestAddF32(static_cast<const float*>(src), a, static_cast<float*>(dst));
        return Status::ok();
      }
      // An input NaN: the resize's own result (quieted NaN), then the add over it.
      nearest(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), sizeof(float));
      canonicalizeNaN(inT_, dst, numElements(out_));
      float* o = static_cast<float*>(dst);
      addRowF32(o, a, o, numElements(out_), addOther_ == 1);
      return Status::ok();
    }
    if (!bilinear_) {
      nearest(static_cast<const uint8_t*>(src), static_cast<uint8_t*>(dst), storageBytes(inT_));
      if (hasNaN(inT_, src, numElements(in_))) canonicalizeNaN(inT_, dst, numElements(out_));
      return Status::ok();
    }
    switch (inT_) {
      case DType::I8: bilinearInt<int8_t, int32_t, int32_t>(src, dst); break;
      case DType::I16: bilinearInt<int16_t, int64_t, int64_t>(src, dst); break;
      case DType::FP32: bilinearF32(src, dst); break;
      default: bilinear16(src, dst); break;  // fp16, bf16
    }
    return Status::ok();
  }

 private:
  int64_t rows() const { return out_[0] * out_[1]; }
  bool parallel() const { return numElements(out_) > 65536; }

  // Each output pixel is a copy of one input pixel (C contiguous elements).
  void nearest(const uint8_t* in, uint8_t* out, size_t elem) const {
    const int64_t H = in_[1], W = in_[2], C = in_[3], OH = out_[1], OW = out_[2];
    const size_t pixel = size_t(C) * elem, rowBytes = size_t(OW) * pixel;
    parallelItems(rows(), parallel(), [&](int64_t r) {
      const int64_t n = r / OH, oy = r % OH;
      uint8_t* o = out + size_t(r) * rowBytes;
      const uint8_t* inRow = in + size_t((n * H + ys_[size_t(oy)].nearest) * W) * pixel;
      for (int64_t ox = 0; ox < OW; ++ox)
        std::memcpy(o + size_t(ox) * pixel, inRow + size_t(xs_[size_t(ox)].nearest) * pixel, pixel);
    });
  }

  // nearest() with the fused add: out = resized (+) a, pixel by pixel.
  void nearestAddF32(const float* in, const float* a, float* out) const {
    const int64_t H = in_[1], W = in_[2], C = in_[3], OH = out_[1], OW = out_[2];
    const bool resizedFirst = addOther_ == 1;
    parallelItems(rows(), parallel(), [&](int64_t r) {
      const int64_t n = r / OH, oy = r % OH;
      const float* inRow = in + (n * H + ys_[size_t(oy)].nearest) * W * C;
      for (int64_t ox = 0; ox < OW; ++ox) {
        const int64_t at = (r * OW + ox) * C;
        addRowF32(inRow + xs_[size_t(ox)].nearest * C, a + at, out + at, C, resizedFirst);
      }
    });
  }

  template <typename F>
  void forEachPixel(F&& f) const {
    const int64_t OH = out_[1], OW = out_[2];
    parallelItems(rows(), parallel(), [&](int64_t r) {
      for (int64_t ox = 0; ox < OW; ++ox) f(r / OH, ys_[size_t(r % OH)], xs_[size_t(ox)], r * OW + ox);
    });
  }

  template <typename In, typename Acc, typename Out>
  void bilinearInt(const void* src, void* dst) const {
    const In* in = static_cast<const In*>(src);
    Out* out = static_cast<Out*>(dst);
    const int64_t H = in_[1], W = in_[2], C = in_[3];
    forEachPixel([&](int64_t n, const Axis& y, const Axis& x, int64_t pix) {
      auto at = [&](int64_t iy, int64_t ix) { return in + ((n * H + iy) * W + ix) * C; };
      const Acc wy0 = Acc(unitY_ - y.d), wy1 = Acc(y.d), wx0 = Acc(unitX_ - x.d), wx1 = Acc(x.d);
      bilinearIntRow<In, Acc, Out>(at(y.i0, x.i0), at(y.i0, x.i1), at(y.i1, x.i0), at(y.i1, x.i1), wy0 * wx0, wy0 * wx1,
                                   wy1 * wx0, wy1 * wx1, out + pix * C, C);
    });
  }

  void bilinearF32(const void* src, void* dst) const {
    const float* in = static_cast<const float*>(src);
    float* out = static_cast<float*>(dst);
    const int64_t H = in_[1], W = in_[2], C = in_[3];
    forEachPixel([&](int64_t n, const Axis& y, const Axis& x, int64_t pix) {
      auto at = [&](int64_t iy, int64_t ix) { return in + ((n * H + iy) * W + ix) * C; };
      const float dy = float(y.fd), dx = float(x.fd);
      const float ody = float(1.0 - y.fd), odx = float(1.0 - x.fd);  // R(1.0 - dy): one rounding, as ref
      bilinearF32Row(at(y.i0, x.i0), at(y.i0, x.i1), at(y.i1, x.i0), at(y.i1, x.i1), dy, ody, dx, odx, out + pix * C,
                     C);
    });
  }

  // fp16/bf16: the reference's steps literally (fp64 arithmetic, each result rounded to resize_t).
  void bilinear16(const void* src, void* dst) const {
    const uint16_t* in = static_cast<const uint16_t*>(src);
    uint16_t* out = static_cast<uint16_t*>(dst);
    const int64_t H = in_[1], W = in_[2], C = in_[3];
    const DType t = inT_;
    auto R = [t](double v) { return roundToFloat(t, v); };
    forEachPixel([&](int64_t n, const Axis& y, const Axis& x, int64_t pix) {
      auto at = [&](int64_t iy, int64_t ix) { return in + ((n * H + iy) * W + ix) * C; };
      const uint16_t *p00 = at(y.i0, x.i0), *p01 = at(y.i0, x.i1), *p10 = at(y.i1, x.i0), *p11 = at(y.i1, x.i1);
      const double dy = y.fd, dx = x.fd, ody = R(1.0 - dy), odx = R(1.0 - dx);
      uint16_t* o = out + pix * C;
      for (int64_t c = 0; c < C; ++c) {
        const double v00 = decodeFloatBits(t, p00[c]), v01 = decodeFloatBits(t, p01[c]);
        const double v10 = decodeFloatBits(t, p10[c]), v11 = decodeFloatBits(t, p11[c]);
        double acc = R(R(v00 * ody) * odx);
        acc = R(acc + R(R(v01 * ody) * dx));
        acc = R(acc + R(R(v10 * dy) * odx));
        acc = R(acc + R(R(v11 * dy) * dx));
        o[c] = uint16_t(encodeFloatBits(t, acc));
      }
    });
  }

  DType inT_, outT_;
  bool bilinear_;
  bool fusedAdd_ = false;
  int addOther_ = 1;
  Shape in_, out_;
  std::vector<Axis> ys_, xs_;
  int64_t unitY_, unitX_;
};

bool resizeTypes(DType inT, DType outT, bool bilinear) {
  if (inT == DType::FP16 || inT == DType::BF16 || inT == DType::FP32) return outT == inT;
  if (inT == DType::I8) return outT == (bilinear ? DType::I32 : DType::I8);
  if (inT == DType::I16) return outT == (bilinear ? DType::I48 : DType::I16);
  return false;
}

// The spec's ERROR_IFs on the attributes (the Session has validated them; a violation here only means the
// reference kernel should give the verdict).
bool attributesValid(const Shape& in, const Shape& out, const std::vector<int64_t>& s, const std::vector<int64_t>& off,
                     const std::vector<int64_t>& border) {
  if (std::max({out[1], out[2], in[1], in[2]}) >= 16384) return false;
  for (int a = 0; a < 2; ++a) {
    const int64_t n = s[size_t(2 * a)], d = s[size_t(2 * a + 1)], o = off[size_t(a)], b = border[size_t(a)];
    if (n <= 0 || d <= 0 || n > (1 << 11) || d >= 16 * n) return false;
    if (o < -n || o >= 16 * n || b < -16 * n || b >= n) return false;
    const int64_t span = (in[size_t(1 + a)] - 1) * n - o + b;
    if (span % d != 0 || out[size_t(1 + a)] != span / d + 1) return false;
  }
  return true;
}

// The other operand's index (0 or 1) when the chain continues with a tosa.add the nearest fp32 resize can
// absorb: fp32, the resize's shape, the other operand full-size (no broadcast) and not the resize's result.
int fusableAdd(const OpChain& chain, bool bilinear, DType inT) {
  if (bilinear || inT != DType::FP32 || chain.ops.size() < 2) return -1;
  const ir::Operation& add = *chain.ops[1];
  const ir::Value* resized = chain.ops[0]->results[0];
  if (add.name != "tosa.add" || add.operands.size() != 2 || add.results.size() != 1) return -1;
  const int other = add.operands[0] == resized ? 1 : 0;
  if (add.operands[size_t(1 - other)] != resized || add.operands[size_t(other)] == resized) return -1;
  const ir::ValueType& o = add.operands[size_t(other)]->type;
  const ir::ValueType& r = add.results[0]->type;
  if (o.dtype != DType::FP32 || r.dtype != DType::FP32 || o.dims != resized->type.dims || r.dims != resized->type.dims)
    return -1;
  return other;
}

}  // namespace

Result<CompiledKernel> compileResize(const OpChain& chain) {
  const ir::Operation& op = *chain.ops[0];
  if (op.operands.size() != 4 || op.results.size() != 1) return CompiledKernel{};
  const std::string mode = op.strAttr("mode");
  const bool bilinear = mode == "BILINEAR";
  if (!bilinear && mode != "NEAREST_NEIGHBOR") return CompiledKernel{};
  const DType inT = op.operands[0]->type.dtype, outT = op.results[0]->type.dtype;
  const Shape& in = op.operands[0]->type.dims;
  const Shape& out = op.results[0]->type.dims;
  if (!resizeTypes(inT, outT, bilinear) || in.size() != 4 || out.size() != 4 || out[0] != in[0] || out[3] != in[3])
    return CompiledKernel{};
  if (numElements(out) == 0 || numElements(in) == 0) return CompiledKernel{};
  const Tensor *scale = chain.constants[0][1], *offset = chain.constants[0][2], *border = chain.constants[0][3];
  if (!scale || !offset || !border || scale->size() != 4 || offset->size() != 2 || border->size() != 2)
    return CompiledKernel{};
  const std::vector<int64_t> s = scale->toInts(), off = offset->toInts(), b = border->toInts();
  if (!attributesValid(in, out, s, off, b)) return CompiledKernel{};
  auto kernel =
      std::make_unique<ResizeKernel>(inT, outT, bilinear, in, out, axisTable(out[1], in[1], s[0], s[1], off[0], inT),
                                     axisTable(out[2], in[2], s[2], s[3], off[1], inT), s[0], s[2]);
  CompiledKernel ck;
  const int other = fusableAdd(chain, bilinear, inT);
  if (other >= 0) {
    kernel->fuseAdd(other);
    ck.opsAbsorbed = 2;
  }
  ck.kernel = std::move(kernel);
  return ck;
}

}  // namespace tosakit::fast

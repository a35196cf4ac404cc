// Data movement without arithmetic: transpose, concat, slice, pad as strided byte copies (any element type).
// Attributes and shape operands are resolved at compile time; anything unusual (a bad permutation, a
// non-constant shape operand) is left to the reference kernel, which reports the spec's verdict.
#include <algorithm>
#include <cstring>
#include <numeric>

#include <immintrin.h>
#include <omp.h>

#include "fast/cpu_features.h"
#include "fast/op_kernel.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

std::vector<int64_t> stridesOf(const Shape& s) {
  std::vector<int64_t> st(s.size(), 1);
  for (int d = int(s.size()) - 2; d >= 0; --d) st[size_t(d)] = st[size_t(d) + 1] * s[size_t(d) + 1];
  return st;
}

// Drops axes of size 1 and merges neighbouring axes that are contiguous in both the input and the output (a
// concat along channels becomes [N*H*W, C] rows instead of a rank-4 walk with a division per axis per row).
void collapseBox(Shape& box, std::vector<int64_t>& inStride, std::vector<int64_t>& outStride) {
  Shape b;
  std::vector<int64_t> is, os;
  for (size_t d = 0; d < box.size(); ++d) {
    if (box[d] == 1 && box.size() > 1) continue;
    if (!b.empty() && is.back() == inStride[d] * box[d] && os.back() == outStride[d] * box[d]) {
      b.back() *= box[d];
      is.back() = inStride[d];
      os.back() = outStride[d];
      continue;
    }
    b.push_back(box[d]);
    is.push_back(inStride[d]);
    os.push_back(outStride[d]);
  }
  if (b.empty()) {  // every axis had size 1: one element
    b.push_back(1);
    is.push_back(1);
    os.push_back(1);
  }
  box = std::move(b);
  inStride = std::move(is);
  outStride = std::move(os);
}

// One row of a box: `inner` elements from src (stride is) to dst (stride os), in elements of `elem` bytes.
inline void copyRow(const uint8_t* src, uint8_t* dst, int64_t inner, int64_t is, int64_t os, size_t elem) {
  if (is == 1 && os == 1) {
    std::memcpy(dst, src, size_t(inner) * elem);
  } else if (elem == 1) {
    for (int64_t i = 0; i < inner; ++i) dst[i * os] = src[i * is];
  } else if (elem == 4) {
    uint32_t v;
    for (int64_t i = 0; i < inner; ++i) {
      std::memcpy(&v, src + i * is * 4, 4);
      std::memcpy(dst + i * os * 4, &v, 4);
    }
  } else {
    for (int64_t i = 0; i < inner; ++i) std::memcpy(dst + i * os * int64_t(elem), src + i * is * int64_t(elem), elem);
  }
}

// Copies a strided box: out[i0..] = in[base + sum(i_d * inStride_d)], innermost axis contiguous in the output.
// The rows [r0, r1) of a thread: the outer index is decomposed once (divisions) and then counted up row by
// row, so a concat of short channel rows (PP-OCR det's 4 x 24 channels over 160x160 pixels: 100K rows of 96
// bytes) costs a copy per row, not two 64-bit divisions per axis.
void copyBox(const uint8_t* in, uint8_t* out, Shape box, std::vector<int64_t> inStride, std::vector<int64_t> outStride,
             size_t elem) {
  if (numElements(box) == 0) return;
  collapseBox(box, inStride, outStride);
  const int r = int(box.size());
  if (r == 0) {
    std::memcpy(out, in, elem);
    return;
  }
  const int64_t inner = box.back(), rows = numElements(box) / std::max<int64_t>(inner, 1);
  const int64_t is = inStride.back(), os = outStride.back();
  auto copyRows = [&](int64_t r0, int64_t r1) {
    if (r0 >= r1) return;
    std::vector<int64_t> idx(size_t(r), 0);
    int64_t rem = r0, ib = 0, ob = 0;
    for (int d = r - 2; d >= 0; --d) {
      idx[size_t(d)] = rem % box[size_t(d)];
      rem /= box[size_t(d)];
      ib += idx[size_t(d)] * inStride[size_t(d)];
      ob += idx[size_t(d)] * outStride[size_t(d)];
    }
    for (int64_t row = r0; row < r1; ++row) {
      copyRow(in + ib * int64_t(elem), out + ob * int64_t(elem), inner, is, os, elem);
      for (int d = r - 2; d >= 0; --d) {  // the next row's index
        ib += inStride[size_t(d)], ob += outStride[size_t(d)];
        if (++idx[size_t(d)] < box[size_t(d)]) break;
        ib -= box[size_t(d)] * inStride[size_t(d)], ob -= box[size_t(d)] * outStride[size_t(d)];
        idx[size_t(d)] = 0;
      }
    }
  };
  if (rows * inner <= 65536 || omp_get_max_threads() == 1) {
    copyRows(0, rows);
    return;
  }
#pragma omp parallel
  {
    const int64_t t = omp_get_thread_num(), n = omp_get_num_threads();
    copyRows(rows * t / n, rows * (t + 1) / n);
  }
}

// A 3-channel fp32 image NCHW -> NHWC (the transpose in front of an imported network's first convolution):
// 16 positions per step, the three channel vectors interleaved by two two-source permutes per result vector.
// Positions [p0, p1) of image n; P positions per image.
#define TK_AVX512F __attribute__((target("avx512f")))
TK_AVX512F void nchwToNhwc3(const float* x, float* y, int64_t P, int64_t n, int64_t p0, int64_t p1) {
  // Result float g of a 16-position block is channel g % 3 of position g / 3. First a permute takes channels 0
  // and 1 from (a, b), then one puts channel 2 in from c (index tables built once).
  struct Tables {
    alignas(64) int32_t ab[3][16], abc[3][16];
    Tables() {
      for (int k = 0; k < 3; ++k)
        for (int j = 0; j < 16; ++j) {
          const int g = 16 * k + j, pos = g / 3, ch = g % 3;
          ab[k][j] = ch == 1 ? 16 + pos : pos;
          abc[k][j] = ch == 2 ? 16 + pos : j;
        }
    }
  };
  static const Tables t;
  const auto& ab = t.ab;
  const auto& abc = t.abc;
  const float* a = x + n * 3 * P;
  float* out = y + n * 3 * P;
  for (int64_t p = p0; p < p1; p += 16) {
    const int64_t m = std::min<int64_t>(16, p1 - p);
    const __mmask16 in = __mmask16((1u << m) - 1);
    const __m512 va = _mm512_maskz_loadu_ps(in, a + p), vb = _mm512_maskz_loadu_ps(in, a + P + p),
                 vc = _mm512_maskz_loadu_ps(in, a + 2 * P + p);
    for (int k = 0; k < 3; ++k) {
      const int64_t done = 16 * k, left = 3 * m - done;
      if (left <= 0) break;
      const __m512 t = _mm512_permutex2var_ps(va, _mm512_load_si512(ab[k]), vb);
      const __m512 r = _mm512_permutex2var_ps(t, _mm512_load_si512(abc[k]), vc);
      _mm512_mask_storeu_ps(out + 3 * p + done, left >= 16 ? __mmask16(0xffff) : __mmask16((1u << left) - 1), r);
    }
  }
}

bool hasAvx512F() { return cpu::has(cpu::Isa::Avx512); }

class TransposeKernel : public OpKernel {
 public:
  TransposeKernel(Shape out, std::vector<int64_t> inStride, size_t elem)
      : out_(std::move(out)), inStride_(std::move(inStride)), elem_(elem) {}
  std::string implName() const override { return image3_ ? "fast:transpose_nhwc3" : "fast:transpose"; }
  double resultAbsBound(double inputBound) const override { return inputBound; }  // the same values, moved
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    if (image3_) {
      runImage3(in[0][0].as<const float>(), out[0].as<float>());
      return Status::ok();
    }
    copyBox(static_cast<const uint8_t*>(in[0][0].data), static_cast<uint8_t*>(out[0].data), box_, inStride_, outStride_,
            elem_);
    return Status::ok();
  }

  // copyBox walks rows of the box's last axis. When the output's last axis is short (NCHW -> NHWC: C = 3) and
  // another axis is longer and contiguous in the input, that axis becomes the box's last one: long rows of
  // contiguous reads instead of many 3-element rows.
  void chooseCopyOrder() {
    // fp32 [N, 3, H, W] -> [N, H, W, 3]: the input strides of the result's axes are 3HW, W, 1, HW.
    image3_ = elem_ == 4 && out_.size() == 4 && out_[3] == 3 && hasAvx512F() && inStride_[2] == 1 &&
        inStride_[1] == out_[2] && inStride_[3] == out_[1] * out_[2] && inStride_[0] == 3 * inStride_[3];
    box_ = out_;
    outStride_ = stridesOf(out_);
    const int r = int(out_.size());
    int k = -1;
    for (int d = 0; d < r - 1; ++d)
      if (inStride_[size_t(d)] == 1 && out_[size_t(d)] > out_.back()) k = d;
    if (k < 0) return;
    for (std::vector<int64_t>* v : {&box_, &inStride_, &outStride_}) {
      int64_t moved = (*v)[size_t(k)];
      v->erase(v->begin() + k);
      v->push_back(moved);
    }
  }

 private:
  void runImage3(const float* x, float* y) const {
    const int64_t N = out_[0], P = out_[1] * out_[2], block = 4096, perImage = (P + block - 1) / block;
    parallelItems(N * perImage, N * P * 3 > 65536 && omp_get_max_threads() > 1, [&](int64_t b) {
      const int64_t n = b / perImage, p0 = (b % perImage) * block;
      nchwToNhwc3(x, y, P, n, p0, std::min(P, p0 + block));
    });
  }

  Shape out_, box_;
  std::vector<int64_t> inStride_, outStride_;
  size_t elem_;
  bool image3_ = false;
};

bool storable(DType t) { return t != DType::I4 && storageBytes(t) > 0; }

}  // namespace

Result<CompiledKernel> compileTranspose(const OpChain& chain) {
  const ir::Operation& op = *chain.ops[0];
  const Shape& in = op.operands[0]->type.dims;
  const Shape& out = op.results[0]->type.dims;
  std::vector<int64_t> perms = op.intArrayAttr("perms");
  if (perms.size() != in.size() || out.size() != in.size() || !storable(op.results[0]->type.dtype))
    return CompiledKernel{};
  std::vector<bool> used(in.size(), false);
  for (size_t d = 0; d < perms.size(); ++d) {
    if (perms[d] < 0 || perms[d] >= int64_t(in.size()) || used[size_t(perms[d])]) return CompiledKernel{};
    used[size_t(perms[d])] = true;
    if (out[d] != in[size_t(perms[d])]) return CompiledKernel{};
  }
  std::vector<int64_t> inStrides = stridesOf(in), st(in.size());
  for (size_t d = 0; d < perms.size(); ++d) st[d] = inStrides[size_t(perms[d])];
  CompiledKernel ck;
  auto k = std::make_unique<TransposeKernel>(out, st, storageBytes(op.results[0]->type.dtype));
  k->chooseCopyOrder();
  ck.kernel = std::move(k);
  return ck;
}

namespace {

class ConcatKernel : public OpKernel {
 public:
  ConcatKernel(Shape out, int axis, size_t elem) : out_(std::move(out)), axis_(axis), elem_(elem) {}
  std::string implName() const override { return "fast:concat"; }
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    std::vector<int64_t> os = stridesOf(out_);
    int64_t offset = 0;
    for (const TensorView& v : in[0]) {
      uint8_t* dst = static_cast<uint8_t*>(out[0].data) + offset * os[size_t(axis_)] * int64_t(elem_);
      copyBox(static_cast<const uint8_t*>(v.data), dst, v.shape, stridesOf(v.shape), os, elem_);
      offset += v.shape[size_t(axis_)];
    }
    return Status::ok();
  }

 private:
  Shape out_;
  int axis_;
  size_t elem_;
};

}  // namespace

Result<CompiledKernel> compileConcat(const OpChain& chain) {
  const ir::Operation& op = *chain.ops[0];
  const Shape& out = op.results[0]->type.dims;
  int64_t axis = op.intAttr("axis", -1);
  if (axis < 0 || axis >= int64_t(out.size()) || !storable(op.results[0]->type.dtype)) return CompiledKernel{};
  int64_t sum = 0;
  for (const ir::Value* v : op.operands) {
    if (v->type.dims.size() != out.size() || v->type.dtype != op.results[0]->type.dtype) return CompiledKernel{};
    for (size_t d = 0; d < out.size(); ++d)
      if (int64_t(d) != axis && v->type.dims[d] != out[d]) return CompiledKernel{};
    sum += v->type.dims[size_t(axis)];
  }
  if (sum != out[size_t(axis)]) return CompiledKernel{};
  CompiledKernel ck;
  ck.kernel = std::make_unique<ConcatKernel>(out, int(axis), storageBytes(op.results[0]->type.dtype));
  return ck;
}

namespace {

class SliceKernel : public OpKernel {
 public:
  SliceKernel(Shape out, int64_t startOffset, std::vector<int64_t> inStride, size_t elem)
      : out_(std::move(out)), start_(startOffset), inStride_(std::move(inStride)), elem_(elem) {}
  std::string implName() const override { return "fast:slice"; }
  double resultAbsBound(double inputBound) const override { return inputBound; }  // a subset of the values
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    copyBox(static_cast<const uint8_t*>(in[0][0].data) + start_ * int64_t(elem_), static_cast<uint8_t*>(out[0].data),
            out_, inStride_, stridesOf(out_), elem_);
    return Status::ok();
  }

 private:
  Shape out_;
  int64_t start_;
  std::vector<int64_t> inStride_;
  size_t elem_;
};

}  // namespace

Result<CompiledKernel> compileSlice(const OpChain& chain) {
  const ir::Operation& op = *chain.ops[0];
  if (op.operands.size() != 3 || !chain.constants[0][1] || !chain.constants[0][2]) return CompiledKernel{};
  const Shape& in = op.operands[0]->type.dims;
  const Shape& out = op.results[0]->type.dims;
  std::vector<int64_t> start = chain.constants[0][1]->toInts(), size = chain.constants[0][2]->toInts();
  if (start.size() != in.size() || size.size() != in.size() || out.size() != in.size() ||
      !storable(op.results[0]->type.dtype))
    return CompiledKernel{};
  int64_t offset = 0;
  std::vector<int64_t> st = stridesOf(in);
  for (size_t d = 0; d < in.size(); ++d) {
    if (start[d] < 0 || size[d] != out[d] || start[d] + size[d] > in[d]) return CompiledKernel{};
    offset += start[d] * st[d];
  }
  CompiledKernel ck;
  ck.kernel = std::make_unique<SliceKernel>(out, offset, st, storageBytes(op.results[0]->type.dtype));
  return ck;
}

namespace {

// n copies of the element at `value` (typed stores, split over threads when large).
template <typename T>
void fill(uint8_t* dst, const uint8_t* value, int64_t n) {
  T v;
  std::memcpy(&v, value, sizeof(T));
  T* p = reinterpret_cast<T*>(dst);
  constexpr int64_t kChunk = 16384;
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  parallelItems(chunks, n > 4 * kChunk,
                [&](int64_t c) { std::fill(p + c * kChunk, p + std::min(n, (c + 1) * kChunk), v); });
}

class PadKernel : public OpKernel {
 public:
  PadKernel(Shape in, Shape out, int64_t offset, size_t elem)
      : in_(std::move(in)), out_(std::move(out)), offset_(offset), elem_(elem) {}
  std::string implName() const override { return "fast:pad"; }
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    // Fill with pad_const, then copy the input box into place.
    uint8_t* dst = static_cast<uint8_t*>(out[0].data);
    const uint8_t* value = static_cast<const uint8_t*>(in[0][2].data);
    const int64_t n = numElements(out_);
    switch (elem_) {
      case 1: fill<uint8_t>(dst, value, n); break;
      case 2: fill<uint16_t>(dst, value, n); break;
      case 4: fill<uint32_t>(dst, value, n); break;
      case 8: fill<uint64_t>(dst, value, n); break;
      default:
        for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * int64_t(elem_), value, elem_);
    }
    copyBox(static_cast<const uint8_t*>(in[0][0].data), dst + offset_ * int64_t(elem_), in_, stridesOf(in_),
            stridesOf(out_), elem_);
    return Status::ok();
  }

 private:
  Shape in_, out_;
  int64_t offset_;
  size_t elem_;
};

}  // namespace

Result<CompiledKernel> compilePad(const OpChain& chain) {
  const ir::Operation& op = *chain.ops[0];
  if (op.operands.size() != 3 || !chain.constants[0][1]) return CompiledKernel{};
  const Shape& in = op.operands[0]->type.dims;
  const Shape& out = op.results[0]->type.dims;
  std::vector<int64_t> padding = chain.constants[0][1]->toInts();
  DType t = op.results[0]->type.dtype;
  if (padding.size() != 2 * in.size() || out.size() != in.size() || !storable(t) || op.operands[2]->type.dtype != t ||
      numElements(op.operands[2]->type.dims) != 1)
    return CompiledKernel{};
  std::vector<int64_t> st = stridesOf(out);
  int64_t offset = 0;
  for (size_t d = 0; d < in.size(); ++d) {
    if (padding[2 * d] < 0 || padding[2 * d + 1] < 0 || in[d] + padding[2 * d] + padding[2 * d + 1] != out[d])
      return CompiledKernel{};
    offset += padding[2 * d] * st[d];
  }
  CompiledKernel ck;
  ck.kernel = std::make_unique<PadKernel>(in, out, offset, storageBytes(t));
  return ck;
}

}  // namespace tosakit::fast

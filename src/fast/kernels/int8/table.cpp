// tosa.table and tosa.cast on the fast backend, bit for bit the reference's results.
//  - TABLE i8 -> i8: a 256-entry lookup (AVX512-VBMI byte permutes where the CPU has them, else AVX2 pshufb
//    rows); after another
//    step's i8 result (its only user) in place by that step (withTrailingTable). i16 -> i32: apply_lookup_s (spec 1.12.5), 513 entries, 7-bit
//    interpolation. A constant table is checked once at compile time for the slope REQUIRE
//    (|next - base| fits i16); a table that fails it is left to the reference kernel, which gives the verdict.
//  - CAST between fp32 and i8/i16/i32 (round to nearest, ties to even, saturating) and between integer widths
//    (sign extension / truncation). A NaN input (unpredictable per the spec) reruns on the reference kernel.
#include <immintrin.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "fast/isa_dispatch.h"
#include "fast/kernels/common.h"
#include "fast/op_kernel.h"
#include "fast/parallel_items.h"

namespace tosakit::fast {
namespace {

constexpr int64_t kParallelElements = 65536;

TK_VECTOR_BODY void lookupI8Body(const int8_t* in, int8_t* out, int64_t n, const int8_t* table) {
  for (int64_t i = 0; i < n; ++i) out[i] = table[int(in[i]) + 128];
}
// The lookup 32 bytes at a time on AVX2 (no byte permute over more than 16 entries). u = in + 128 indexes the
// table's 16 rows of 16 bytes by its high nibble h. pshufb looks up a row by the low nibble and gives 0 where the
// index byte is negative, so two cascades of 8 steps each cover the table with differences of rows: the lanes of
// in < 0 start at y = u (0..127; in >= 0 gives u >= 128, negative as a byte: 0 in every step), the lanes of in >= 0
// at y = in; step k looks up y - 16k (saturating: a negative y stays negative; a y of 0..127 does not saturate) in
// row k ^ row k-1 of its half, so a lane with high nibble h within its half meets rows 0..h and their XOR is row h
// (low nibble unchanged by - 16k). A row equal to the one before it adds nothing and is left out: tables with
// constant stretches (the hard-swish's zeros below -3, a saturated end) take fewer steps. At most 16 pshufb, 14
// subtractions and 15 XORs per 32 bytes (the row select by compare and blend before: 16 compares, 16 pshufb, 32
// and/or; the hard-swish tables after the PaddleOCR classifier's convolutions were ~10% of its INT8 time at
// avx2). The compiler-vectorized loop gathered byte by byte (~3 cycles a byte).
TK_TARGET_AVX2 void lookupI8Avx2(const int8_t* in, int8_t* out, int64_t n, const int8_t* table) {
  __m256i diff[16];  // [0, 8): rows 0..7 (in < 0) as differences, [8, 16): rows 8..15 (in >= 0)
  __m256i step[8];   // 16k
  int negRows[7], posRows[7], nNeg = 0, nPos = 0;  // the steps k >= 1 whose difference is not zero
  for (int h = 0; h < 16; ++h) {
    const __m128i row = _mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * h));
    const __m128i prev =
        h % 8 ? _mm_loadu_si128(reinterpret_cast<const __m128i*>(table + 16 * (h - 1))) : _mm_setzero_si128();
    const __m128i d = _mm_xor_si128(row, prev);
    diff[h] = _mm256_broadcastsi128_si256(d);
    if (h % 8 && !_mm_testz_si128(d, d)) (h < 8 ? negRows[nNeg++] : posRows[nPos++]) = h % 8;
  }
  for (int k = 0; k < 8; ++k) step[k] = _mm256_set1_epi8(char(16 * k));
  const __m256i bias = _mm256_set1_epi8(char(0x80));
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i pos = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in + i));
    const __m256i neg = _mm256_xor_si256(pos, bias);
    __m256i r = _mm256_xor_si256(_mm256_shuffle_epi8(diff[0], neg), _mm256_shuffle_epi8(diff[8], pos));
    for (int j = 0; j < nNeg; ++j) {
      const int k = negRows[j];
      r = _mm256_xor_si256(r, _mm256_shuffle_epi8(diff[k], _mm256_subs_epi8(neg, step[k])));
    }
    for (int j = 0; j < nPos; ++j) {
      const int k = posRows[j];
      r = _mm256_xor_si256(r, _mm256_shuffle_epi8(diff[8 + k], _mm256_subs_epi8(pos, step[k])));
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), r);
  }
  for (; i < n; ++i) out[i] = table[int(in[i]) + 128];
}

void lookupI8(const int8_t* in, int8_t* out, int64_t n, const int8_t* table) {
  if (cpu::vectorIsa() != cpu::VectorIsa::Baseline) return lookupI8Avx2(in, out, n, table);
  TK_ISA_DISPATCH(lookupI8Body(in, out, n, table));
}

// The same lookup 64 bytes at a time with AVX512-VBMI byte permutes: u = in + 128 (= in ^ 0x80) indexes the
// 256-byte table; vpermi2b looks up 128-byte halves by u's low 7 bits, u's top bit picks the half.
__attribute__((target("avx512f,avx512bw,avx512vbmi"))) void lookupI8Vbmi(const int8_t* in, int8_t* out, int64_t n,
                                                                         const int8_t* table) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  const __m512i bias = _mm512_set1_epi8(char(0x80));
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    const __m512i u = _mm512_xor_si512(_mm512_loadu_si512(in + i), bias);
    const __m512i low = _mm512_permutex2var_epi8(t0, u, t1), high = _mm512_permutex2var_epi8(t2, u, t3);
    _mm512_storeu_si512(out + i, _mm512_mask_blend_epi8(_mm512_movepi8_mask(u), low, high));
  }
  for (; i < n; ++i) out[i] = table[int(in[i]) + 128];
}

bool hasVbmi() { return cpu::features().avx512Vbmi; }

// apply_lookup_s with a precomputed base (<< 7) and slope per index: clipping is a no-op on i16 inputs.
TK_VECTOR_BODY void lookupI16Body(const int16_t* in, int32_t* out, int64_t n, const int32_t* base7,
                                  const int32_t* slope) {
  for (int64_t i = 0; i < n; ++i) {
    const int32_t v = int32_t(in[i]) + 32768;
    const int32_t index = v >> 7, fraction = v & 0x7f;
    out[i] = base7[index] + slope[index] * fraction;
  }
}
void lookupI16(const int16_t* in, int32_t* out, int64_t n, const int32_t* base7, const int32_t* slope) {
  TK_ISA_DISPATCH(lookupI16Body(in, out, n, base7, slope));
}

class TableKernel : public OpKernel {
 public:
  std::string implName() const override { return i16_ ? "fast:table_i16" : "fast:table_i8"; }
  const bool vbmi_ = hasVbmi();

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const int64_t n = in[0][0].size();
    const int64_t chunk = 16384, chunks = (n + chunk - 1) / chunk;
    parallelItems(chunks, n > kParallelElements, [&](int64_t c) {
      const int64_t b = c * chunk, m = std::min(chunk, n - b);
      if (i16_)
        lookupI16(in[0][0].as<const int16_t>() + b, out[0].as<int32_t>() + b, m, base7_.data(), slope_.data());
      else if (vbmi_)
        lookupI8Vbmi(in[0][0].as<const int8_t>() + b, out[0].as<int8_t>() + b, m, table8_.data());
      else
        lookupI8(in[0][0].as<const int8_t>() + b, out[0].as<int8_t>() + b, m, table8_.data());
    });
    return Status::ok();
  }

  bool i16_ = false;
  std::vector<int8_t> table8_;
  std::vector<int32_t> base7_, slope_;
};

// A step's kernel followed by an i8 table on its result: the inner kernel writes the table's result buffer,
// then the table is looked up in place while the values are still in cache (withTrailingTable).
class TrailingTableKernel : public OpKernel {
 public:
  TrailingTableKernel(std::unique_ptr<OpKernel> inner, std::vector<int8_t> table)
      : inner_(std::move(inner)), table_(std::move(table)) {}
  std::string implName() const override { return inner_->implName() + "+table_i8"; }
  double flops() const override { return inner_->flops(); }
  std::vector<std::pair<int, int>> packedConstants() const override { return inner_->packedConstants(); }
  Result<Tensor> unpackConstant(int op, int operand) const override { return inner_->unpackConstant(op, operand); }

  // `in` has one more row than the inner kernel's (the table's), which the inner kernel does not read.
  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    TK_RETURN_IF_ERROR(inner_->run(in, out));
    int8_t* y = out[0].as<int8_t>();
    const int64_t n = out[0].size();
    const int64_t chunk = 16384, chunks = (n + chunk - 1) / chunk;
    parallelItems(chunks, n > kParallelElements, [&](int64_t c) {
      const int64_t b = c * chunk, m = std::min(chunk, n - b);
      if (vbmi_)
        lookupI8Vbmi(y + b, y + b, m, table_.data());  // in place: each block is read before it is written
      else
        lookupI8(y + b, y + b, m, table_.data());
    });
    return Status::ok();
  }

 private:
  std::unique_ptr<OpKernel> inner_;
  std::vector<int8_t> table_;
  const bool vbmi_ = hasVbmi();
};

}  // namespace

Result<CompiledKernel> compileTable(const OpChain& chain) {
  const ir::Operation& op = *chain.ops[0];
  if (op.operands.size() != 2 || op.results.size() != 1 || !chain.constants[0][1]) return CompiledKernel{};
  const Tensor& table = *chain.constants[0][1];
  const DType inT = op.operands[0]->type.dtype, outT = op.results[0]->type.dtype;
  if (op.operands[0]->type.dims != op.results[0]->type.dims) return CompiledKernel{};
  auto k = std::make_unique<TableKernel>();
  if (inT == DType::I8 && table.dtype() == DType::I8 && outT == DType::I8 && table.rank() == 1 && table.size() == 256) {
    for (int64_t i = 0; i < 256; ++i) k->table8_.push_back(int8_t(table.getInt(i)));
  } else if (inT == DType::I16 && table.dtype() == DType::I16 && outT == DType::I32 && table.rank() == 1 &&
             table.size() == 513) {
    k->i16_ = true;
    // Index 512 is reached only by value 32767 + 32768 = 65535 >> 7 = 511: base/slope for 0..511 suffice.
    for (int64_t i = 0; i < 512; ++i) {
      const int64_t base = table.getInt(i), slope = table.getInt(i + 1) - base;
      if (slope < -32768 || slope > 32767) return CompiledKernel{};  // REQUIRE: the reference's verdict
      k->base7_.push_back(int32_t(base * 128));
      k->slope_.push_back(int32_t(slope));
    }
  } else {
    return CompiledKernel{};
  }
  CompiledKernel ck;
  ck.kernel = std::move(k);
  return ck;
}

namespace {

// ---- CAST ----

template <typename Out>
TK_VECTOR_BODY bool floatToIntBody(const float* in, Out* out, int64_t n) {
  // Saturation bounds in float: exact for i8/i16; for i32, 2^31 is the first float above the range.
  constexpr float lo = float(std::numeric_limits<Out>::min());
  constexpr float hiExclusive = sizeof(Out) == 4 ? 2147483648.0f : float(std::numeric_limits<Out>::max()) + 1.0f;
  int32_t nan = 0;  // an int flag: GCC does not vectorize a bool |= reduction
  for (int64_t i = 0; i < n; ++i) {
    const float v = in[i];
    nan |= int32_t(v != v);
    float r = std::nearbyint(v);
    r = r < lo ? lo : r;
    const bool over = r >= hiExclusive;  // converted only when in range (out-of-range conversion is UB)
    r = over || v != v ? 0.0f : r;
    out[i] = over ? std::numeric_limits<Out>::max() : Out(r);
  }
  return nan == 0;
}
template <typename Out>
bool floatToInt(const float* in, Out* out, int64_t n) {
  TK_ISA_DISPATCH(floatToIntBody<Out>(in, out, n));
}

template <typename In>
TK_VECTOR_BODY void intToFloatBody(const In* in, float* out, int64_t n) {
  // i32 -> fp32 rounds to nearest even in the conversion instruction, as the reference's fp64 -> fp32 does
  // (the value is exact in fp64, so rounding once from fp64 and directly are the same).
  for (int64_t i = 0; i < n; ++i) out[i] = float(in[i]);
}
template <typename In>
void intToFloat(const In* in, float* out, int64_t n) {
  TK_ISA_DISPATCH(intToFloatBody<In>(in, out, n));
}

template <typename In, typename Out>
void intToInt(const In* in, Out* out, int64_t n) {
  // Widening sign-extends; narrowing keeps the low bits (two's complement truncation, as truncate_to: C++20
  // defines integral conversion modulo 2^N). Going through the unsigned type would zero-extend a widening.
  for (int64_t i = 0; i < n; ++i) out[i] = static_cast<Out>(in[i]);
}

class CastKernel : public OpKernel {
 public:
  CastKernel(DType in, DType out) : in_(in), out_(out) {}
  std::string implName() const override { return "fast:cast"; }

  Status run(const std::vector<std::vector<TensorView>>& in, const std::vector<TensorView>& out) override {
    const int64_t n = in[0][0].size();
    const int64_t chunk = 16384, chunks = (n + chunk - 1) / chunk;
    const bool ok = parallelItems(chunks, n > kParallelElements, [&](int64_t c) {
      const int64_t b = c * chunk, m = std::min(chunk, n - b);
      return castChunk(in[0][0].data, out[0].data, b, m);
    });
    return ok ? Status::ok() : rerunOnReference();
  }

 private:
  template <typename In>
  bool fromInt(const In* x, void* y, int64_t m) const {
    switch (out_) {
      case DType::FP32: intToFloat(x, static_cast<float*>(y), m); return true;
      case DType::I8: intToInt(x, static_cast<int8_t*>(y), m); return true;
      case DType::I16: intToInt(x, static_cast<int16_t*>(y), m); return true;
      case DType::I32: intToInt(x, static_cast<int32_t*>(y), m); return true;
      default: return false;
    }
  }

  bool castChunk(const void* x, void* y, int64_t b, int64_t m) const {
    switch (in_) {
      case DType::FP32: {
        const float* f = static_cast<const float*>(x) + b;
        switch (out_) {
          case DType::I8: return floatToInt(f, static_cast<int8_t*>(y) + b, m);
          case DType::I16: return floatToInt(f, static_cast<int16_t*>(y) + b, m);
          case DType::I32: return floatToInt(f, static_cast<int32_t*>(y) + b, m);
          default: return false;
        }
      }
      case DType::I8: return fromInt(static_cast<const int8_t*>(x) + b, offset(y, b), m);
      case DType::I16: return fromInt(static_cast<const int16_t*>(x) + b, offset(y, b), m);
      case DType::I32: return fromInt(static_cast<const int32_t*>(x) + b, offset(y, b), m);
      default: return false;
    }
  }

  void* offset(void* y, int64_t b) const {
    return static_cast<uint8_t*>(y) + b * (out_ == DType::I8 ? 1 : out_ == DType::I16 ? 2 : 4);
  }

  DType in_, out_;
};

bool castHandled(DType in, DType out) {
  auto intT = [](DType t) { return t == DType::I8 || t == DType::I16 || t == DType::I32; };
  if (in == DType::FP32) return intT(out);
  return intT(in) && (intT(out) || out == DType::FP32) && in != out;
}

}  // namespace

Result<CompiledKernel> compileCast(const OpChain& chain) {
  const ir::Operation& op = *chain.ops[0];
  if (op.operands.size() != 1 || op.results.size() != 1) return CompiledKernel{};
  const DType inT = op.operands[0]->type.dtype, outT = op.results[0]->type.dtype;
  if (!castHandled(inT, outT) || op.operands[0]->type.dims != op.results[0]->type.dims) return CompiledKernel{};
  CompiledKernel ck;
  ck.kernel = std::make_unique<CastKernel>(inT, outT);
  return ck;
}

std::unique_ptr<OpKernel> withTrailingTable(std::unique_ptr<OpKernel>& inner, const ir::Operation& table,
                                            const std::vector<const Tensor*>& constants) {
  if (table.name != "tosa.table" || table.operands.size() != 2 || table.results.size() != 1 || !constants[1])
    return nullptr;
  const Tensor& t = *constants[1];
  const ir::ValueType &x = table.operands[0]->type, &y = table.results[0]->type;
  if (x.dtype != DType::I8 || y.dtype != DType::I8 || x.dims != y.dims || t.dtype() != DType::I8 || t.rank() != 1 ||
      t.size() != 256)
    return nullptr;
  std::vector<int8_t> entries;
  for (int64_t i = 0; i < 256; ++i) entries.push_back(int8_t(t.getInt(i)));
  return std::make_unique<TrailingTableKernel>(std::move(inner), std::move(entries));
}

}  // namespace tosakit::fast

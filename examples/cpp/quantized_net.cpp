// A small int8 network built op by op with the BMLang-style C++ API (include/tosakit/lang.h), saved as MLIR
// TOSA, loaded back and run on the reference backend, and checked against a plain C++ evaluation of BMLang's
// formulas. Run by ctest: example_quantized_net OUT.mlir
//
//   x (i8, 1x2x6x6) -> conv 3x3, 4 channels, LowPrecisionSymmetric, scale 1/64
//     -> active RELU -> pool_int 2x2 average (round half away from zero)
//     -> reshape 1x36 -> matrix_mul 36x3, HighPrecisionSymmetric, scale 3/256 -> logits (i8, 1x3)
//     -> dequant_int_to_fp32 (scale 0.1) -> softmax -> probabilities (fp32, 1x3)
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tosakit/lang.h"
#include "tosakit/model_io.h"
#include "tosakit/session.h"

using namespace tosakit;

namespace {

Tensor ints(DType t, Shape shape, int seed, int lo, int hi) {
  Tensor r(t, shape);
  unsigned s = unsigned(seed);
  for (int64_t i = 0; i < r.size(); ++i) {
    s = s * 1103515245u + 12345u;
    r.setInt(i, lo + int64_t((s >> 8) % unsigned(hi - lo + 1)));
  }
  return r;
}

int64_t clip(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

// BMLang rounding right shift ((x >> (s - 1)) + 1) >> 1 and round half away from zero.
int64_t roundShift(int64_t x, int s) { return s == 0 ? x : ((x >> (s - 1)) + 1) >> 1; }
int64_t roundDiv(int64_t a, int64_t b) { return a >= 0 ? (2 * a + b) / (2 * b) : -((-2 * a + b) / (2 * b)); }

// The same network in plain loops: the expected logits.
std::vector<int64_t> expectedLogits(const Tensor& x, const Tensor& w, const Tensor& b, const Tensor& fc) {
  int64_t conv[4][6][6];
  for (int o = 0; o < 4; ++o)
    for (int y = 0; y < 6; ++y)
      for (int xx = 0; xx < 6; ++xx) {
        int64_t acc = b.getInt(o);
        for (int c = 0; c < 2; ++c)
          for (int ky = 0; ky < 3; ++ky)
            for (int kx = 0; kx < 3; ++kx) {
              int iy = y + ky - 1, ix = xx + kx - 1;
              if (iy < 0 || iy >= 6 || ix < 0 || ix >= 6) continue;
              acc += x.getInt((c * 6 + iy) * 6 + ix) * w.getInt(((o * 2 + c) * 3 + ky) * 3 + kx);
            }
        // LowPrecisionSymmetric, scale = 1/64 = 2^-6: rshift 6, no remaining scale; then RELU.
        conv[o][y][xx] = std::max<int64_t>(clip(roundShift(acc, 6), -128, 127), 0);
      }
  std::vector<int64_t> pooled;  // [4, 3, 3] flattened as NCHW
  for (int o = 0; o < 4; ++o)
    for (int y = 0; y < 3; ++y)
      for (int xx = 0; xx < 3; ++xx)
        pooled.push_back(roundDiv(conv[o][2 * y][2 * xx] + conv[o][2 * y][2 * xx + 1] + conv[o][2 * y + 1][2 * xx] +
                                      conv[o][2 * y + 1][2 * xx + 1],
                                  4));
  std::vector<int64_t> logits;
  for (int n = 0; n < 3; ++n) {
    int64_t acc = 0;
    for (int k = 0; k < 36; ++k) acc += pooled[size_t(k)] * fc.getInt(k * 3 + n);
    // HighPrecisionSymmetric, scale 3/256: rshift = ceil(log2(256/3)) = 7, then round(res * 1.5).
    int64_t res = clip(roundShift(acc, 7), -32768, 32767);
    logits.push_back(clip(roundDiv(res * 3, 2), -128, 127));
  }
  return logits;
}

int fail(const std::string& what) {
  std::fprintf(stderr, "quantized_net: %s\n", what.c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : "quantized_net.mlir";
  const Tensor x = ints(DType::I8, {1, 2, 6, 6}, 1, -128, 127);
  const Tensor w = ints(DType::I8, {4, 2, 3, 3}, 2, -40, 40);
  const Tensor b = ints(DType::I16, {4}, 3, -300, 300);
  const Tensor fc = ints(DType::I8, {36, 3}, 4, -90, 90);

  // [snippet:build]
  lang::Graph g;
  lang::Var in = g.input("x", DType::I8, {1, 2, 6, 6});
  lang::ConvParam cp;
  cp.pad_h_t = cp.pad_h_b = cp.pad_w_l = cp.pad_w_r = 1;
  cp.scale = 1.0 / 64;
  cp.mode = lang::QCalMode::LowPrecisionSymmetric;
  lang::Var y = g.conv(in, g.coeff(w, "conv_w"), g.coeff(b, "conv_b"), cp, DType::I8);
  y = g.active(y, lang::ActiveType::ACTIVE_RELU);
  lang::PoolIntParam pp;
  pp.kernel_h = pp.kernel_w = 2;
  pp.stride_h = pp.stride_w = 2;
  pp.is_avg_pooling = true;
  pp.quant_mode = 1;  // round(sum / count), half away from zero
  y = g.pool_int(y, pp);
  y = g.reshape(y, {1, -1});
  lang::MatrixMulParam mp;
  mp.scale = 3.0 / 256;
  mp.mode = lang::QCalMode::HighPrecisionSymmetric;
  lang::Var logits = g.matrix_mul(y, g.coeff(fc, "fc_w"), lang::Var{}, mp, DType::I8);
  lang::DequantInt32Param dq;
  dq.scale_val = 0.1f;
  lang::Var prob = g.softmax(g.dequant_int_to_fp32(logits, dq), 1);
  g.output(logits, "logits");
  g.output(prob, "prob");
  // [end]

  // [snippet:compile-save]
  ir::TargetEnv target;
  target.profiles = {"pro_int", "pro_fp"};
  if (Status s = g.compile(target); !s) return fail(s.toString());
  if (Status s = g.save(path); !s) return fail(s.toString());
  // [end]

  // [snippet:run]
  Result<NamedTensors> direct = g.run({{"x", x}});
  if (!direct) return fail(direct.status().toString());
  // [end]

  // [snippet:session]
  Result<std::unique_ptr<ir::Module>> loaded = loadModel(path);
  if (!loaded) return fail(loaded.status().toString());
  Result<std::unique_ptr<Session>> session = Session::create(std::move(*loaded));
  if (!session) return fail(session.status().toString());
  RunResult result;
  if (Status s = (*session)->run({{"x", x}}, result); !s) return fail(s.toString());
  const Tensor& got = result.outputs[0].second;  // "logits"
  // [end]

  std::vector<int64_t> want = expectedLogits(x, w, b, fc);
  if (got.toInts() != want || (*direct)[0].second.toInts() != want) {
    std::string m = "logits differ from the BMLang formulas: want";
    for (int64_t v : want) m += " " + std::to_string(v);
    m += ", got";
    for (int64_t v : got.toInts()) m += " " + std::to_string(v);
    return fail(m);
  }
  const Tensor& p = result.outputs[1].second;
  double sum = 0, denom = 0;
  for (int64_t v : want) denom += std::exp(0.1 * double(v));
  for (int i = 0; i < 3; ++i) {
    sum += p.getFloat(i);
    if (std::fabs(p.getFloat(i) - std::exp(0.1 * double(want[size_t(i)])) / denom) > 1e-5)
      return fail("softmax differs");
  }
  // [snippet:errors]
  lang::Graph bad;
  lang::Var v = bad.input("v", DType::FP32, {1, 8});
  lang::TopkParam tp;
  tp.k = 3;
  std::vector<lang::Var> top = bad.topk(v, tp);  // TOSA 1.0 has no sort: no result
  Status why = bad.status();                     // unsupported: "topk: k = 3: TOSA 1.0 has no sort; ..."
  // [end]
  if (why.code() != StatusCode::Unsupported || !top.empty() || why.message().rfind("topk: ", 0) != 0)
    return fail("topk with k = 3 should be reported as unsupported, got " + why.toString());

  std::printf("quantized_net: logits %lld %lld %lld, probabilities sum %.6f; saved %s\n", (long long)want[0],
              (long long)want[1], (long long)want[2], sum, path.c_str());
  return 0;
}

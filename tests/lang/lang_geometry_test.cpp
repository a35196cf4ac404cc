// tosakit::lang geometry sweep: every combination of kernel, stride, padding, dilation, ceil mode and input
// size that an operator accepts must lower to TOSA that validates and runs (no ERROR_IF, no REQUIRE failure);
// every combination it refuses must give an error Status, never a crash. The values themselves are checked
// in lang_ops_test.cpp.
#include <gtest/gtest.h>

#include "tosakit/lang.h"

using namespace tosakit;
using lang::Var;

namespace {

Tensor filled(DType t, Shape s, int64_t v) {
  Tensor r(t, s);
  for (int64_t i = 0; i < r.size(); ++i) r.setInt(i, v);
  return r;
}

// Builds with `make`; when the graph accepts it, it must compile and run on a zero input.
void expectBuildsValidOrRefuses(const std::string& what, DType inType, Shape inShape,
                                const std::function<Var(lang::Graph&, Var)>& make, int& accepted) {
  lang::Graph g;
  Var x = g.input("x", inType, inShape);
  Var y = make(g, x);
  if (!g.status().isOk()) {
    EXPECT_TRUE(g.status().code() == StatusCode::InvalidArgument || g.status().code() == StatusCode::Unsupported)
        << what << ": " << g.status().toString();
    return;
  }
  ++accepted;
  g.output(y, "y");
  Status s = g.compile();
  ASSERT_TRUE(s.isOk()) << what << ": " << s.toString();
  Tensor in = inType == DType::FP32 ? Tensor(DType::FP32, inShape) : filled(inType, inShape, 3);
  auto r = g.run({{"x", in}});
  ASSERT_TRUE(r.isOk()) << what << ": " << r.status().toString();
}

TEST(LangGeometry, ConvolutionsAndPoolsAcceptOnlyValidGeometry) {
  int accepted = 0, tried = 0;
  for (int size : {1, 4, 7})
    for (int k : {1, 2, 3, 5})
      for (int s : {1, 2, 3})
        for (int pad0 : {0, 1, 2})
          for (int pad1 : {0, 2})
            for (int dil : {1, 2}) {
              const std::string geo = "size " + std::to_string(size) + " k " + std::to_string(k) + " s " +
                  std::to_string(s) + " pads " + std::to_string(pad0) + "," + std::to_string(pad1) + " dil " +
                  std::to_string(dil);
              ++tried;
              expectBuildsValidOrRefuses(
                  "conv " + geo, DType::U8, {1, 2, size, size + 1},
                  [&](lang::Graph& g, Var x) {
                    lang::ConvParam p;
                    p.pad_h_t = p.pad_w_l = pad0;
                    p.pad_h_b = p.pad_w_r = pad1;
                    p.stride_h = p.stride_w = s;
                    p.dh = p.dw = dil;
                    p.scale = 0.01;
                    p.mode = lang::QCalMode::HighPrecisionAsymmetric;
                    p.left_zero_point = 128;
                    p.right_zero_point = 1;
                    return g.conv(x, g.coeff(filled(DType::I8, {2, 2, k, k}, 2)), Var{}, p);
                  },
                  accepted);
              if (dil != 1) continue;
              expectBuildsValidOrRefuses(
                  "deconv " + geo, DType::I8, {1, 2, size, size},
                  [&](lang::Graph& g, Var x) {
                    lang::ConvParam p;
                    p.pad_h_t = p.pad_w_l = pad0;
                    p.pad_h_b = p.pad_w_r = pad1;
                    p.stride_h = p.stride_w = s;
                    p.scale = 1.0 / 8;
                    return g.deconv(x, g.coeff(filled(DType::I8, {2, 3, k, k}, 1)), Var{}, p);
                  },
                  accepted);
              for (int ceil : {0, 1}) {
                for (bool avg : {false, true})
                  expectBuildsValidOrRefuses(
                      "pool_int " + geo + (avg ? " avg" : " max") + " ceil " + std::to_string(ceil), DType::I8,
                      {1, 2, size, size + 2},
                      [&](lang::Graph& g, Var x) {
                        lang::PoolIntParam p;
                        p.kernel_h = p.kernel_w = k;
                        p.stride_h = p.stride_w = s;
                        p.pad_h_t = p.pad_w_l = pad0;
                        p.pad_h_b = p.pad_w_r = pad1;
                        p.out_ceil_mode = ceil;
                        p.is_avg_pooling = avg;
                        return g.pool_int(x, p);
                      },
                      accepted);
                for (bool countPad : {false, true})
                  expectBuildsValidOrRefuses(
                      "pool avg " + geo + " ceil " + std::to_string(ceil), DType::FP32, {1, 2, size, size},
                      [&](lang::Graph& g, Var x) {
                        lang::PoolParam p;
                        p.kernel_h = p.kernel_w = k;
                        p.stride_h = p.stride_w = s;
                        p.pad_h = p.pad_w = pad0;
                        p.pad_h_offset = p.pad_w_offset = pad1 - pad0;
                        p.is_ceil_mode = ceil;
                        p.pooling_type = lang::PoolType::AVE;
                        p.is_ave_count_zero_pad = countPad;
                        return g.pool(x, p);
                      },
                      accepted);
              }
            }
  EXPECT_GT(accepted, tried);  // most geometries are accepted; the rest were refused with a Status
}

TEST(LangGeometry, ResizesAndPadsAcceptOnlyValidGeometry) {
  int accepted = 0;
  for (int in : {1, 2, 5})
    for (int out : {1, 3, 8, 10})
      for (int mode = 0; mode < 3; ++mode) {
        const std::string what =
            "interpolate " + std::to_string(in) + " -> " + std::to_string(out) + " mode " + std::to_string(mode);
        expectBuildsValidOrRefuses(
            what, DType::FP32, {1, 1, in, in + 1},
            [&](lang::Graph& g, Var x) {
              lang::InterpolateParam p;
              p.method = mode == 0 ? lang::InterpolateMode::NEAREST : lang::InterpolateMode::BILINEAR;
              p.align_corners = mode == 1;
              p.half_pixel_centers = mode == 2;
              return g.interpolate(x, {out, out + 1}, {}, p);
            },
            accepted);
      }
  for (int n : {1, 2, 4})
    for (int before : {0, 1, 3, 4})
      for (int mode = 0; mode < 4; ++mode)
        expectBuildsValidOrRefuses(
            "pad", DType::I16, {2, n},
            [&](lang::Graph& g, Var x) {
              return g.pad(x, 7, {0, 0, before, 1}, lang::PadType(mode));
            },
            accepted);
  EXPECT_GT(accepted, 40);
}

}  // namespace

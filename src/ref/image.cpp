// Spec section 2.12 Image operators: RESIZE.
#include <algorithm>

#include "ref/kernel.h"
#include "ref/spec_helpers.h"

namespace tosakit::ref {

namespace {

using Inputs = std::vector<const Tensor*>;
using Outputs = std::vector<Tensor>;

// Supported Data Types of RESIZE: (in_t, out_t, mode). resize_t is in_t for floats and i16 for integers.
bool resizeTypesSupported(DType inT, DType outT, bool bilinear) {
  if (inT == DType::FP16 || inT == DType::FP32 || inT == DType::BF16) return outT == inT;
  if (inT == DType::I8) return outT == (bilinear ? DType::I32 : DType::I8);
  if (inT == DType::I16) return outT == (bilinear ? DType::I48 : DType::I16);
  return false;
}

// 2.12.1 RESIZE
Status resizeKernel(KernelContext& ctx, const Inputs& in, Outputs& out) {
  ERROR_IF(in.size() != 4 || out.size() != 1);
  const Tensor& input = *in[0];
  Tensor& output = out[0];
  std::string modeName = ctx.op.strAttr("mode");
  bool bilinear = modeName == "BILINEAR";
  if (!bilinear && modeName != "NEAREST_NEIGHBOR")
    return ctx.unsupported("mode must be NEAREST_NEIGHBOR or BILINEAR, got '" + modeName + "'");
  ERROR_IF(!resizeTypesSupported(ctx.dtypeOf(input), ctx.dtypeOf(output), bilinear));  // not in Supported Data Types
  ERROR_IF(input.rank() != 4 || output.rank() != 4);
  ERROR_IF(in[1]->size() != 4 || in[2]->size() != 2 || in[3]->size() != 2);
  const int64_t N = input.shape()[0], IH = input.shape()[1], IW = input.shape()[2], C = input.shape()[3];
  const int64_t OH = output.shape()[1], OW = output.shape()[2];
  ERROR_IF(output.shape()[0] != N);  // output is [N,OH,OW,C]
  ERROR_IF(output.shape()[3] != C);
  const int64_t scale_y_n = in[1]->getInt(0), scale_y_d = in[1]->getInt(1);
  const int64_t scale_x_n = in[1]->getInt(2), scale_x_d = in[1]->getInt(3);
  const int64_t offset_y = in[2]->getInt(0), offset_x = in[2]->getInt(1);
  const int64_t border_y = in[3]->getInt(0), border_x = in[3]->getInt(1);

  // A zero denominator is reported by the ERROR_IF below rather than divided by here.
  const int64_t MAX_SCALE = ctx.level.maxScale;
  LEVEL_CHECK(scale_y_d <= 0 || scale_y_n / scale_y_d <= MAX_SCALE);
  LEVEL_CHECK(scale_x_d <= 0 || scale_x_n / scale_x_d <= MAX_SCALE);
  ERROR_IF(std::max({OH, OW, IH, IW}) >= 16384);
  ERROR_IF(scale_y_n <= 0 || scale_y_d <= 0 || scale_x_n <= 0 || scale_x_d <= 0);
  ERROR_IF(scale_y_n > (1 << 11) || scale_x_n > (1 << 11));
  ERROR_IF(scale_y_d >= 16 * scale_y_n || scale_x_d >= 16 * scale_x_n);
  ERROR_IF(offset_y < -scale_y_n || offset_y >= 16 * scale_y_n);
  ERROR_IF(offset_x < -scale_x_n || offset_x >= 16 * scale_x_n);
  ERROR_IF(border_y < -16 * scale_y_n || border_y >= scale_y_n);
  ERROR_IF(border_x < -16 * scale_x_n || border_x >= scale_x_n);
  int64_t ohCheck = idiv_check(ctx, (IH - 1) * scale_y_n - offset_y + border_y, scale_y_d);
  if (ctx.failed()) return ctx.result();
  ERROR_IF(OH != ohCheck + 1);
  int64_t owCheck = idiv_check(ctx, (IW - 1) * scale_x_n - offset_x + border_x, scale_x_d);
  if (ctx.failed()) return ctx.result();
  ERROR_IF(OW != owCheck + 1);

  const DType inT = ctx.dtypeOf(input);
  const bool fp = is_floating_point(inT);
  const DType resizeT = inT;  // floating-point resize_t == in_t; integer resize_t (i16) needs no rounding
  auto R = [&](double v) { return ctx.roundFloat(resizeT, v); };  // one floating-point operation in resize_t
  auto read = [&](int64_t n, int64_t y, int64_t x, int64_t c) { return input.offset({n, y, x, c}); };
  for (int64_t n = 0; n < N; ++n)
    for (int64_t oy = 0; oy < OH; ++oy)
      for (int64_t ox = 0; ox < OW; ++ox)
        for (int64_t c = 0; c < C; ++c) {
          int32_t y = int32_t(oy * scale_y_d + offset_y);
          int32_t x = int32_t(ox * scale_x_d + offset_x);
          int16_t iy = int16_t(idiv_floor(y, scale_y_n));
          int16_t ix = int16_t(idiv_floor(x, scale_x_n));
          int16_t ry = int16_t(y - iy * scale_y_n);  // (y % scale_y_n)
          int16_t rx = int16_t(x - ix * scale_x_n);  // (x % scale_x_n)
          // Note that -1 <= iy < IH and -1 <= ix < IW
          int64_t iy0 = apply_max_s(iy, 0);
          int64_t iy1 = apply_min_s(iy + 1, IH - 1);
          int64_t ix0 = apply_max_s(ix, 0);
          int64_t ix1 = apply_min_s(ix + 1, IW - 1);
          int64_t o = output.offset({n, oy, ox, c});
          if (fp) {
            double dy = R(double(ry) / double(scale_y_n));
            double dx = R(double(rx) / double(scale_x_n));
            if (bilinear) {
              double v00 = input.getFloat(read(n, iy0, ix0, c));
              double v01 = input.getFloat(read(n, iy0, ix1, c));
              double v10 = input.getFloat(read(n, iy1, ix0, c));
              double v11 = input.getFloat(read(n, iy1, ix1, c));
              double acc = R(R(v00 * R(1.0 - dy)) * R(1.0 - dx));
              acc = R(acc + R(R(v01 * R(1.0 - dy)) * dx));
              acc = R(acc + R(R(v10 * dy) * R(1.0 - dx)));
              acc = R(acc + R(R(v11 * dy) * dx));
              output.setFloat(o, acc);
            } else {
              int64_t sy = (dy >= 0.5) ? iy1 : iy0;
              int64_t sx = (dx >= 0.5) ? ix1 : ix0;
              output.setFloat(o, input.getFloat(read(n, sy, sx, c)));
            }
          } else {
            int64_t dy = ry, dx = rx;
            int64_t unit_y = scale_y_n, unit_x = scale_x_n;
            if (bilinear) {
              // in_s_t values (i8/i16 read signed); acc is out_t (i32 / i48): the bounds above keep it exact.
              int64_t v00 = input.getInt(read(n, iy0, ix0, c));
              int64_t v01 = input.getInt(read(n, iy0, ix1, c));
              int64_t v10 = input.getInt(read(n, iy1, ix0, c));
              int64_t v11 = input.getInt(read(n, iy1, ix1, c));
              int64_t acc = v00 * (unit_y - dy) * (unit_x - dx);
              acc += v01 * (unit_y - dy) * dx;
              acc += v10 * dy * (unit_x - dx);
              acc += v11 * dy * dx;
              output.setInt(o, acc);
            } else {
              int64_t sy = (2 * dy >= scale_y_n) ? iy1 : iy0;
              int64_t sx = (2 * dx >= scale_x_n) ? ix1 : ix0;
              output.setInt(o, input.getInt(read(n, sy, sx, c)));
            }
          }
        }
  return Status::ok();
}

}  // namespace

void registerImage(KernelRegistry& r) { r.add("tosa.resize", resizeKernel); }

}  // namespace tosakit::ref

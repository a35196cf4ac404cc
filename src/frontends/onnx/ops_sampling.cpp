// ONNX lowerings: GridSample, RoiAlign.
//
// Both sample the input at run-time coordinates, which TOSA expresses with tosa.gather: the input as
// [N, H*W, C] values, one flat index y*W + x per sample and tap, the tap weight times an in-bounds mask
// applied afterwards (out-of-range taps read a clamped index and get weight 0). Coordinates and weights are
// float elementwise math; floor() then CAST gives exact integer indices.
#include <cmath>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

// Float elementwise helpers on equal-rank values (constants broadcast as [1, ...]).
struct Ew {
  Importer& im;
  size_t rank;
  Value* c(double v) const { return im.scalarF(float(v), rank); }
  Value* add(Value* a, Value* b) const { return im.b.add(a, b, im.aux("add")); }
  Value* sub(Value* a, Value* b) const { return im.b.sub(a, b, im.aux("sub")); }
  Value* mul(Value* a, Value* b) const { return im.mul(a, b); }
  Value* addc(Value* a, double v) const { return add(a, c(v)); }
  Value* mulc(Value* a, double v) const { return mul(a, c(v)); }
  Value* floor(Value* a) const { return im.unary("tosa.floor", a); }
  Value* abs(Value* a) const { return im.unary("tosa.abs", a); }
  Value* ge(Value* a, Value* b) const { return im.binary("tosa.greater_equal", a, b, DType::Bool); }
  Value* land(Value* a, Value* b) const { return im.binary("tosa.logical_and", a, b, DType::Bool); }
  Value* select(Value* p, Value* a, Value* b) const {
    Shape s = *ir::broadcastShape(*ir::broadcastShape(p->type.dims, a->type.dims), b->type.dims);
    return im.b.op1("tosa.select", {p, a, b}, ValueType::tensor(a->type.dtype, s), {}, im.aux("select"));
  }
  // 1 where lo <= a <= hi, else 0 (float).
  Value* inRange(Value* a, double lo, double hi) const {
    Value* ok = land(ge(a, c(lo)), ge(c(hi), a));
    return select(ok, c(1), c(0));
  }
};

// PyTorch's reflect_coordinates then clip (the reference of ONNX GridSample's reflection padding).
Value* reflect(const Ew& e, Value* x, double twiceLow, double twiceHigh, int64_t size) {
  if (twiceLow == twiceHigh) return e.c(0);
  const double lo = twiceLow / 2, span = (twiceHigh - twiceLow) / 2;
  Value* a = e.abs(e.addc(x, -lo));
  Value* flips = e.floor(e.im.divideF32(a, e.c(span)));
  Value* extra = e.sub(a, e.mulc(flips, span));
  Value* odd = e.sub(flips, e.mulc(e.floor(e.mulc(flips, 0.5)), 2));  // flips mod 2
  Value* even = e.ge(e.c(0.5), odd);
  Value* r = e.select(even, e.addc(extra, lo), e.addc(e.sub(e.c(span), extra), lo));
  return e.im.clampF(r, 0, double(size - 1));
}

// GridSample's padding_mode applied to a (continuous or tap) coordinate along an axis of `size`.
Value* padCoordinate(const Ew& e, Value* x, const std::string& padding, bool alignCorners, int64_t size) {
  if (padding == "border") return e.im.clampF(x, 0, double(size - 1));
  if (padding == "reflection")
    return alignCorners ? reflect(e, x, 0, 2.0 * double(size - 1), size)
                        : reflect(e, x, -1, 2.0 * double(size) - 1, size);
  return x;
}

// PyTorch's cubic convolution coefficients for A = -0.75 at fractional offset t.
std::vector<Value*> cubicCoeffs(const Ew& e, Value* t) {
  const double A = -0.75;
  auto conv1 = [&](Value* x) {  // ((A + 2) x - (A + 3)) x x + 1
    return e.addc(e.mul(e.mul(e.addc(e.mulc(x, A + 2), -(A + 3)), x), x), 1);
  };
  auto conv2 = [&](Value* x) {  // ((A x - 5A) x + 8A) x - 4A
    return e.addc(e.mul(e.addc(e.mul(e.addc(e.mulc(x, A), -5 * A), x), 8 * A), x), -4 * A);
  };
  Value* oneMinus = e.sub(e.c(1), t);
  return {conv2(e.addc(t, 1)), conv1(t), conv1(oneMinus), conv2(e.addc(oneMinus, 1))};
}

// Sum (or max) over taps of weight * mask * X[n, y, x, :], X given as [N, H*W, C]; coordinates and weights
// [N, P]. `base` (optional, [N, P]) is added to the flat index (RoiAlign's batch offset, with N = 1).
struct Tap {
  Value *x, *y, *weight;
};
Value* gatherTaps(Importer& im, const Ew& e, Value* values, const std::vector<Tap>& taps, int64_t H, int64_t W,
                  Value* base = nullptr, bool takeMax = false) {
  const Shape& vs = values->type.dims;
  Value* acc = nullptr;
  for (const Tap& t : taps) {
    Value* mask = e.mul(e.inRange(t.x, 0, double(W - 1)), e.inRange(t.y, 0, double(H - 1)));
    Value* xc = im.clampF(t.x, 0, double(W - 1));
    Value* yc = im.clampF(t.y, 0, double(H - 1));
    Value* flat = e.add(e.mulc(yc, double(W)), xc);
    if (base) flat = e.add(flat, base);
    Value* idx = im.castTo(flat, DType::I32);
    const Shape& is = idx->type.dims;  // [N, P]
    Value* g = im.b.op1("tosa.gather", {values, idx}, ValueType::tensor(DType::FP32, {vs[0], is[1], vs[2]}), {},
                        im.aux("gather"));
    Value* w = im.reshapeTo(e.mul(t.weight, mask), {is[0], is[1], 1}, im.aux("weight"));
    Value* term = im.mul(g, w);
    acc = !acc    ? term
        : takeMax ? im.binary("tosa.maximum", acc, term, DType::FP32)
                  : im.b.add(acc, term, im.aux("add"));
  }
  return acc;
}

Status opGridSample(Importer& im, const NodeProto& n) {
  OVal &x = im.val(n, 0), &grid = im.val(n, 1);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  TK_RETURN_IF_ERROR(im.requireFloat(n, grid));
  if (x.shape.size() != 4)
    return Status::unsupported("GridSample of a rank-" + std::to_string(x.shape.size()) +
                               " input (4-D only, as in opset 16)");
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3];
  if (grid.shape.size() != 4 || grid.shape[0] != N || grid.shape[3] != 2)
    return Status::invalid("GridSample grid must be [N, H_out, W_out, 2], got " + shapeToString(grid.shape));
  const int64_t Ho = grid.shape[1], Wo = grid.shape[2], P = Ho * Wo;
  const std::string mode = im.attrStr(n, "mode", "bilinear"), padding = im.attrStr(n, "padding_mode", "zeros");
  const bool align = im.attrInt(n, "align_corners", 0) != 0;
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return Status::invalid("GridSample mode '" + mode + "'");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return Status::invalid("GridSample padding_mode '" + padding + "'");
  auto xv = im.get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  auto gv = im.get(grid, Layout::Plain);
  if (!gv) return gv.status();
  const Ew e{im, 2};
  Value* values = im.reshapeTo(*xv, {N, H * W, C}, im.aux("values"));
  auto component = [&](int64_t k) {
    Value* s = im.b.op1("tosa.slice", {*gv, im.b.constShape({0, 0, 0, k}), im.b.constShape({N, Ho, Wo, 1})},
                        ValueType::tensor(DType::FP32, {N, Ho, Wo, 1}), {}, im.aux("grid"));
    return im.reshapeTo(s, {N, P}, im.aux("grid"));
  };
  // Normalized [-1, 1] -> pixel coordinates.
  auto unnormalize = [&](Value* g, int64_t size) {
    return align ? e.mulc(e.addc(g, 1), double(size - 1) / 2)
                 : e.mulc(e.addc(e.mulc(g, double(size)), double(size) - 1), 0.5);
  };
  Value* gx = unnormalize(component(0), W);
  Value* gy = unnormalize(component(1), H);
  std::vector<Tap> taps;
  if (mode == "bicubic") {
    Value* fx = e.floor(gx);
    Value* fy = e.floor(gy);
    std::vector<Value*> cx = cubicCoeffs(e, e.sub(gx, fx)), cy = cubicCoeffs(e, e.sub(gy, fy));
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 4; ++i) {
        Value* tx = padCoordinate(e, e.addc(fx, i - 1), padding, align, W);
        Value* ty = padCoordinate(e, e.addc(fy, j - 1), padding, align, H);
        taps.push_back({tx, ty, e.mul(cx[size_t(i)], cy[size_t(j)])});
      }
  } else {
    gx = padCoordinate(e, gx, padding, align, W);
    gy = padCoordinate(e, gy, padding, align, H);
    if (mode == "nearest") {
      // nearbyint (ties to even), as TOSA CAST rounds float -> int.
      taps.push_back({im.castTo(im.castTo(gx, DType::I32), DType::FP32),
                      im.castTo(im.castTo(gy, DType::I32), DType::FP32), e.c(1)});
    } else {
      Value* x0 = e.floor(gx);
      Value* y0 = e.floor(gy);
      Value* tx = e.sub(gx, x0);
      Value* ty = e.sub(gy, y0);
      Value* ux = e.sub(e.c(1), tx);
      Value* uy = e.sub(e.c(1), ty);
      Value* x1 = e.addc(x0, 1);
      Value* y1 = e.addc(y0, 1);
      taps = {{x0, y0, e.mul(ux, uy)}, {x1, y0, e.mul(tx, uy)}, {x0, y1, e.mul(ux, ty)}, {x1, y1, e.mul(tx, ty)}};
    }
  }
  Value* sum = gatherTaps(im, e, values, taps, H, W);
  Value* y = im.b.reshape(sum, {N, Ho, Wo, C}, im.loc);
  im.setValue(n, 0, y, Layout::Nhwc);
  return Status::ok();
}

// RoiAlign (opset 16): per region and output bin, sampling_ratio^2 bilinear samples (Caffe2/ONNX Runtime
// rules: samples beyond one pixel outside give 0, coordinates clamp at 0 and at the last row/column), averaged
// (mode avg) or the max of the weighted corner values (mode max, as ONNX Runtime computes it). The sample
// count must be static: sampling_ratio > 0 (0 would make it depend on the run-time region size).
Status opRoiAlign(Importer& im, const NodeProto& n) {
  OVal &x = im.val(n, 0), &rois = im.val(n, 1), &batch = im.val(n, 2);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  TK_RETURN_IF_ERROR(im.requireFloat(n, rois));
  if (x.shape.size() != 4) return Status::invalid("RoiAlign X must be [N, C, H, W], got " + shapeToString(x.shape));
  if (rois.shape.size() != 2 || rois.shape[1] != 4) return Status::invalid("RoiAlign rois must be [R, 4]");
  const int64_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3], R = rois.shape[0];
  if (batch.shape != Shape{R}) return Status::invalid("RoiAlign batch_indices must be [R]");
  const std::string mode = im.attrStr(n, "mode", "avg");
  const std::string ctm = im.attrStr(n, "coordinate_transformation_mode", "half_pixel");
  if (mode != "avg" && mode != "max") return Status::invalid("RoiAlign mode '" + mode + "'");
  if (ctm != "half_pixel" && ctm != "output_half_pixel")
    return Status::invalid("RoiAlign coordinate_transformation_mode '" + ctm + "'");
  const int64_t PH = im.attrInt(n, "output_height", 1), PW = im.attrInt(n, "output_width", 1);
  const int64_t ratio = im.attrInt(n, "sampling_ratio", 0);
  const double scale = im.attrFloat(n, "spatial_scale", 1.0f);
  if (PH < 1 || PW < 1) return Status::invalid("RoiAlign output size must be positive");
  if (ratio <= 0)
    return Status::unsupported("RoiAlign sampling_ratio 0 (the sample count would depend on the run-time region size)");
  const int64_t G = ratio, P = PH * PW * G * G;
  auto xv = im.get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  auto rv = im.get(rois, Layout::Plain);
  if (!rv) return rv.status();
  auto bv = im.get(batch, Layout::Plain);
  if (!bv) return bv.status();
  const Ew e{im, 2};
  auto column = [&](int64_t k) {
    return im.b.op1("tosa.slice", {*rv, im.b.constShape({0, k}), im.b.constShape({R, 1})},
                    ValueType::tensor(DType::FP32, {R, 1}), {}, im.aux("roi"));
  };
  const double offset = ctm == "half_pixel" ? 0.5 : 0.0;
  Value* x0 = e.addc(e.mulc(column(0), scale), -offset);
  Value* y0 = e.addc(e.mulc(column(1), scale), -offset);
  Value* rw = e.sub(e.addc(e.mulc(column(2), scale), -offset), x0);
  Value* rh = e.sub(e.addc(e.mulc(column(3), scale), -offset), y0);
  if (ctm == "output_half_pixel") {  // legacy: regions at least one pixel
    rw = im.binary("tosa.maximum", rw, e.c(1), DType::FP32);
    rh = im.binary("tosa.maximum", rh, e.c(1), DType::FP32);
  }
  Value* binW = e.mulc(rw, 1.0 / double(PW));
  Value* binH = e.mulc(rh, 1.0 / double(PH));
  // Sample p = ((ph * PW + pw) * G + iy) * G + ix sits at (ph + (iy + .5) / G, pw + (ix + .5) / G) bins.
  std::vector<double> ay(static_cast<size_t>(P)), ax(static_cast<size_t>(P));
  for (int64_t ph = 0, p = 0; ph < PH; ++ph)
    for (int64_t pw = 0; pw < PW; ++pw)
      for (int64_t iy = 0; iy < G; ++iy)
        for (int64_t ix = 0; ix < G; ++ix, ++p) {
          ay[size_t(p)] = double(ph) + (double(iy) + 0.5) / double(G);
          ax[size_t(p)] = double(pw) + (double(ix) + 0.5) / double(G);
        }
  Value* sy = e.add(y0, e.mul(binH, im.constF(Tensor::fromDoubles(DType::FP32, {1, P}, ay))));  // [R, P]
  Value* sx = e.add(x0, e.mul(binW, im.constF(Tensor::fromDoubles(DType::FP32, {1, P}, ax))));
  // Samples more than a pixel outside contribute 0; the rest clamp into the image.
  Value* valid = e.mul(e.inRange(sy, -1, double(H)), e.inRange(sx, -1, double(W)));
  sy = im.clampF(sy, 0, double(H - 1));
  sx = im.clampF(sx, 0, double(W - 1));
  Value* yl = e.floor(sy);
  Value* xl = e.floor(sx);
  Value* yh = im.clampF(e.addc(yl, 1), 0, double(H - 1));
  Value* xh = im.clampF(e.addc(xl, 1), 0, double(W - 1));
  Value* ly = e.sub(sy, yl);
  Value* lx = e.sub(sx, xl);
  Value* hy = e.sub(e.c(1), ly);
  Value* hx = e.sub(e.c(1), lx);
  // Everything as one image row of R*P samples: values [1, N*H*W, C], batch offset b*H*W.
  auto flat = [&](Value* v) { return im.reshapeTo(v, {1, R * P}, im.aux("samples")); };
  Value* base = e.mul(im.castTo(im.reshapeTo(im.castTo(*bv, DType::I32), {R, 1}, im.aux("batch")), DType::FP32),
                      e.c(double(H * W)));
  base = flat(e.add(base, im.constF(Tensor(DType::FP32, {1, P}))));
  Value* v = flat(valid);
  std::vector<Tap> taps = {{flat(xl), flat(yl), e.mul(flat(e.mul(hy, hx)), v)},
                           {flat(xh), flat(yl), e.mul(flat(e.mul(hy, lx)), v)},
                           {flat(xl), flat(yh), e.mul(flat(e.mul(ly, hx)), v)},
                           {flat(xh), flat(yh), e.mul(flat(e.mul(ly, lx)), v)}};
  Value* values = im.reshapeTo(*xv, {1, N * H * W, C}, im.aux("values"));
  Value* s = gatherTaps(im, e, values, taps, H * N, W, base, mode == "max");  // rows of all images stacked
  Value* bins = im.reshapeTo(s, {R, PH * PW, G * G, C}, im.aux("bins"));
  Value* red = im.b.op1(mode == "max" ? "tosa.reduce_max" : "tosa.reduce_sum", {bins},
                        ValueType::tensor(DType::FP32, {R, PH * PW, 1, C}),
                        {{"axis", ir::Attribute::integer(2, DType::I32)}}, im.aux("reduce"));
  if (mode == "avg") red = im.mul(red, im.scalarF(float(1.0 / double(G * G)), 4));
  Value* y = im.b.reshape(red, {R, PH, PW, C}, im.loc);
  im.setValue(n, 0, y, Layout::Nhwc);
  return Status::ok();
}

}  // namespace

void registerSamplingOps(HandlerTable& t) {
  t["GridSample"] = opGridSample;
  t["RoiAlign"] = opRoiAlign;
}

}  // namespace tosakit::onnx

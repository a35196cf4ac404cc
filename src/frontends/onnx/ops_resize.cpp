// Resize -> tosa.resize.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

// The scale as a fraction n/d (scales from ONNX are floats such as 2.0 or 0.5).
std::optional<std::pair<int64_t, int64_t>> fraction(double v) {
  for (int64_t d = 1; d <= 1024; ++d) {
    double nn = v * double(d);
    int64_t r = int64_t(std::llround(nn));
    if (r > 0 && float(double(r) / double(d)) == float(v)) return std::make_pair(r, d);
  }
  return std::nullopt;
}

// Resize (nearest / linear, 2-D spatial) -> tosa.resize. TOSA samples the input at y = (oy * d + offset) / n;
// nearest rounds half up. ONNX's coordinate transform and nearest rounding are mapped onto offset, with n and
// d doubled so that every half-unit shift is an integer.
Status opResize(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  if (x.shape.size() != 4) return Status::unsupported("only 4-D (NCHW) Resize is supported");
  const std::string mode = im.attrStr(n, "mode", "nearest");
  if (mode != "nearest" && mode != "linear") return Status::unsupported("Resize mode '" + mode + "'");
  const std::string ctm = im.attrStr(n, "coordinate_transformation_mode", "half_pixel");
  const std::string nearestMode = im.attrStr(n, "nearest_mode", "round_prefer_floor");
  if (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "asymmetric" && ctm != "align_corners")
    return Status::unsupported("Resize coordinate_transformation_mode '" + ctm + "'");
  if (im.attrInt(n, "antialias", 0) != 0) return Status::unsupported("Resize antialias");
  // Output size and scale per spatial axis: scales (input 2) or sizes (input 3).
  int64_t out[2];
  std::pair<int64_t, int64_t> scale[2];
  std::optional<std::pair<int64_t, int64_t>> alignScale[2];  // align_corners sampling step when from scales
  const int64_t in[2] = {x.shape[2], x.shape[3]};
  if (im.hasInput(n, 3)) {
    auto sz = im.constInput(n, 3, "sizes");
    if (!sz) return sz.status();
    auto v = (*sz)->toInts();
    if (v.size() != 4 || v[0] != x.shape[0] || v[1] != x.shape[1]) return Status::unsupported("Resize of N or C");
    for (int i = 0; i < 2; ++i) {
      out[i] = v[size_t(i) + 2];
      scale[i] = {out[i], in[i]};
    }
  } else {
    auto sc = im.constInput(n, 2, "scales");
    if (!sc) return sc.status();
    if ((*sc)->size() != 4 || (*sc)->getFloat(0) != 1.0 || (*sc)->getFloat(1) != 1.0)
      return Status::unsupported("Resize of N or C");
    for (int i = 0; i < 2; ++i) {
      double s = (*sc)->getFloat(i + 2);
      auto f = fraction(s);
      if (!f) return Status::unsupported("Resize scale " + std::to_string(s) + " is not a simple fraction");
      scale[i] = *f;
      out[i] = int64_t(std::floor(double(in[i]) * s));
      // ONNX's align_corners step with scales uses the unrounded output length in * s:
      // (in - 1) / (in * s - 1) input steps per output step, i.e. n/d = (in * p - q) / (q * (in - 1)).
      alignScale[i] = std::make_pair(in[i] * f->first - f->second, f->second * (in[i] - 1));
    }
  }
  std::vector<int64_t> scaleV, offsetV, borderV;
  for (int i = 0; i < 2; ++i) {
    int64_t sn = scale[i].first, sd = scale[i].second;
    if (ctm == "align_corners") {
      if (alignScale[i]) {
        sn = alignScale[i]->first;
        sd = alignScale[i]->second;
      } else {
        sn = out[i] - 1;
        sd = in[i] - 1;
      }
      if (sn <= 0 || sd <= 0) sn = sd = 1;  // a single row (in or out): only position 0 is sampled
    }
    int64_t g = std::gcd(sn, sd);
    sn = 2 * sn / g;  // doubled: half a step is an integer
    sd = 2 * sd / g;
    int64_t offset = 0;
    // half_pixel: x_original = (oy + 1/2) / scale - 1/2; pytorch_half_pixel is the same except that a
    // length-1 output samples x_original = 0; asymmetric and align_corners: oy / scale.
    if (ctm == "half_pixel" || (ctm == "pytorch_half_pixel" && out[i] > 1)) offset = (sd - sn) / 2;
    if (mode == "nearest") {
      if (nearestMode == "round_prefer_floor") offset -= 1;
      else if (nearestMode == "floor") offset -= sn / 2;
      else if (nearestMode == "ceil") offset += sn / 2 - 1;
      else if (nearestMode != "round_prefer_ceil") return Status::unsupported("Resize nearest_mode '" + nearestMode + "'");
    }
    int64_t border = (out[i] - 1) * sd - (in[i] - 1) * sn + offset;
    if (offset < -sn || offset >= 16 * sn || border < -16 * sn || border >= sn || sn > 2048 || sd >= 16 * sn)
      return Status::unsupported("Resize geometry outside TOSA's limits (scale " + std::to_string(sn) + "/" +
                                 std::to_string(sd) + ", offset " + std::to_string(offset) + ")");
    scaleV.push_back(sn);
    scaleV.push_back(sd);
    offsetV.push_back(offset);
    borderV.push_back(border);
  }
  auto xv = im.get(x, Layout::Nhwc);
  if (!xv) return xv.status();
  const Shape& xs = (*xv)->type.dims;
  Value* sc = im.b.constShape(scaleV, im.aux("scale"));
  Value* of = im.b.constShape(offsetV, im.aux("offset"));
  Value* bo = im.b.constShape(borderV, im.aux("border"));
  Value* y = im.b.op1("tosa.resize", {*xv, sc, of, bo}, ValueType::tensor(DType::FP32, {xs[0], out[0], out[1], xs[3]}),
                    {{"mode", ir::Attribute::enumCase(mode == "nearest" ? "NEAREST_NEIGHBOR" : "BILINEAR")}}, im.loc);
  im.setValue(n, 0, y, Layout::Nhwc);
  return Status::ok();
}

}  // namespace

void registerResizeOps(HandlerTable& t) {
  t["Resize"] = opResize;
}

}  // namespace tosakit::onnx

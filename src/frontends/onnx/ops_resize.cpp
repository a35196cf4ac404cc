// Resize, Upsample -> tosa.resize where it can express the mode, else constant interpolation matrices.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "core/size_budget.h"
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

// ---- the general form: one constant interpolation matrix per resized axis ----
//
// With static shapes every ONNX Resize is separable and linear in the input: out = A_axis . in along each
// axis, A_axis [out, in] computed at import by ONNX's reference algorithm (coordinate transform, the n
// nearest neighbours with edge clamping, nearest/linear/cubic coefficients, exclude_outside, antialias). It
// covers what tosa.resize cannot express (cubic, tf_half_pixel_for_nn, tf_crop_and_resize, antialias, opset-18
// axes / keep_aspect_ratio_policy, other ranks, large or irregular scales) at the cost of a matmul per axis. tf_crop_and_resize samples outside the input give
// extrapolation_value: their rows of A are zero and a constant mask adds the value.

struct ResizeAxis {
  int64_t in = 1, out = 1;
  double scale = 1;                 // output / input (from scales, or sizes / input)
  double roiStart = 0, roiEnd = 1;  // tf_crop_and_resize
};

struct ResizeMode {
  std::string mode, ctm, nearestMode;
  double cubicA = -0.75;
  bool excludeOutside = false;
  bool antialias = false;  // linear / cubic: when downscaling, the filter is stretched by 1 / scale
};

// Keys cubic convolution kernel (cubic_coeff_a = A) at distance x.
double cubicKernel(double A, double x) {
  x = std::fabs(x);
  if (x <= 1) return ((A + 2) * x - (A + 3)) * x * x + 1;
  if (x < 2) return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A;
  return 0;
}

// Antialiased linear / cubic (ONNX's reference: the kernel evaluated at scale * distance over a support
// widened to 1 / scale, normalized to sum 1). Taps start + t, t = 0 .. 2 - 2 * start, relative to floor(x).
std::vector<double> antialiasCoeffs(const ResizeMode& m, double ratio, double scale) {
  const bool cubic = m.mode == "cubic";
  const int64_t start = int64_t(std::floor((cubic ? -2.0 : -1.0) / scale)) + 1;
  std::vector<double> c;
  double sum = 0;
  for (int64_t i = start; i < 2 - start; ++i) {
    const double arg = scale * (double(i) - ratio);
    c.push_back(cubic ? cubicKernel(m.cubicA, arg) : std::clamp(1 - std::fabs(arg), 0.0, 1.0));
    sum += c.back();
  }
  for (double& v : c) v /= sum;
  return c;
}

// Interpolation coefficients for ratio in (0, 1] (1 when the sample is on a pixel).
std::vector<double> resizeCoeffs(const ResizeMode& m, double ratio, bool onPixel) {
  if (m.mode == "nearest") {
    if (onPixel) return {0, 1};
    const std::string& nm = m.nearestMode;
    if (nm == "round_prefer_ceil") return {ratio < 0.5 ? 1.0 : 0.0, ratio >= 0.5 ? 1.0 : 0.0};
    if (nm == "floor") return {1, 0};
    if (nm == "ceil") return {0, 1};
    return {ratio <= 0.5 ? 1.0 : 0.0, ratio > 0.5 ? 1.0 : 0.0};  // round_prefer_floor
  }
  if (m.mode == "linear") return {1 - ratio, ratio};
  const double A = m.cubicA, r = ratio, q = 1 - ratio;
  return {((A * (r + 1) - 5 * A) * (r + 1) + 8 * A) * (r + 1) - 4 * A, ((A + 2) * r - (A + 3)) * r * r + 1,
          ((A + 2) * q - (A + 3)) * q * q + 1, ((A * (q + 1) - 5 * A) * (q + 1) + 8 * A) * (q + 1) - 4 * A};
}

// A [out, in] for one axis; inside[o] is false where tf_crop_and_resize samples outside the input.
void resizeMatrix(const ResizeMode& m, const ResizeAxis& ax, std::vector<double>& a, std::vector<bool>& inside) {
  a.assign(size_t(ax.out * ax.in), 0.0);
  inside.assign(size_t(ax.out), true);
  const double in = double(ax.in), outLen = ax.scale * in;  // ONNX uses the unrounded output length
  for (int64_t o = 0; o < ax.out; ++o) {
    const double x = double(o);
    double xo;
    if (m.ctm == "align_corners")
      xo = outLen == 1 ? 0 : x * (in - 1) / (outLen - 1);
    else if (m.ctm == "asymmetric")
      xo = x / ax.scale;
    else if (m.ctm == "tf_half_pixel_for_nn")
      xo = (x + 0.5) / ax.scale;
    else if (m.ctm == "pytorch_half_pixel")
      xo = outLen == 1 ? -0.5 : (x + 0.5) / ax.scale - 0.5;
    else if (m.ctm == "tf_crop_and_resize") {
      xo = outLen == 1 ? (ax.roiEnd - ax.roiStart) * (in - 1) / 2
                       : x * (ax.roiEnd - ax.roiStart) * (in - 1) / (outLen - 1);
      xo += ax.roiStart * (in - 1);
      if (xo < 0 || xo > in - 1) {
        inside[size_t(o)] = false;
        continue;
      }
    } else
      xo = (x + 0.5) / ax.scale - 0.5;  // half_pixel
    const double fl = std::floor(xo);
    const bool onPixel = xo == fl;
    const double ratio = onPixel ? 1.0 : xo - fl;
    std::vector<double> c = m.antialias && m.mode != "nearest" && ax.scale < 1 ? antialiasCoeffs(m, ratio, ax.scale)
                                                                               : resizeCoeffs(m, ratio, onPixel);
    const int64_t taps = int64_t(c.size());
    // The taps nearest to xo, left-biased: floor(xo) - taps/2 + 1 ... (xo - 1 ... xo when on a pixel).
    const int64_t first = (onPixel ? int64_t(fl) - 1 : int64_t(fl)) - taps / 2 + 1;
    if (m.excludeOutside) {
      double sum = 0;
      for (int64_t t = 0; t < taps; ++t) {
        const int64_t idx = first + t;
        if (idx < 0 || idx >= ax.in) c[size_t(t)] = 0;
        sum += c[size_t(t)];
      }
      for (double& v : c) v /= sum;
    }
    for (int64_t t = 0; t < taps; ++t) {
      const int64_t idx = std::clamp<int64_t>(first + t, 0, ax.in - 1);  // edge padding
      a[size_t(o * ax.in + idx)] += c[size_t(t)];
    }
  }
}

bool isIdentity(const std::vector<double>& a, int64_t n, int64_t in) {
  if (n != in) return false;
  for (int64_t r = 0; r < n; ++r)
    for (int64_t c = 0; c < in; ++c)
      if (a[size_t(r * in + c)] != (r == c ? 1.0 : 0.0)) return false;
  return true;
}

// x (plain) resized along every axis whose matrix is not the identity; returns the plain result.
Result<Value*> resizeByMatrices(Importer& im, Value* x, const ResizeMode& m, const std::vector<ResizeAxis>& axes,
                                double extrapolation) {
  const size_t rank = axes.size();
  std::vector<std::vector<bool>> inside(rank);
  bool anyOutside = false;
  for (size_t d = 0; d < rank; ++d) {
    std::vector<double> a;
    resizeMatrix(m, axes[d], a, inside[d]);
    for (bool b : inside[d]) anyOutside |= !b;
    if (isIdentity(a, axes[d].out, axes[d].in)) continue;
    // Move axis d last, [1, rows, in] x A^T [1, in, out], move it back.
    std::vector<int64_t> perm;
    for (size_t k = 0; k < rank; ++k)
      if (k != d) perm.push_back(int64_t(k));
    perm.push_back(int64_t(d));
    const bool moved = d + 1 != rank;
    Value* v = moved ? im.b.transpose(x, perm, im.aux("axis_last")) : x;
    const Shape vs = v->type.dims;
    const int64_t rows = numElements(vs) / axes[d].in;
    std::vector<double> at(size_t(axes[d].in * axes[d].out));
    for (int64_t o = 0; o < axes[d].out; ++o)
      for (int64_t i = 0; i < axes[d].in; ++i) at[size_t(i * axes[d].out + o)] = a[size_t(o * axes[d].in + i)];
    Value* y = im.matmul3(im.reshapeTo(v, {1, rows, axes[d].in}, im.aux("rows")),
                          im.constF(Tensor::fromDoubles(DType::FP32, {1, axes[d].in, axes[d].out}, at)));
    Shape ys = vs;
    ys.back() = axes[d].out;
    y = im.reshapeTo(y, ys, im.aux("resized"));
    if (moved) {
      std::vector<int64_t> back(rank);
      for (size_t k = 0; k < rank; ++k) back[size_t(perm[k])] = int64_t(k);
      y = im.b.transpose(y, back, im.aux("axis_back"));
    }
    x = y;
  }
  if (anyOutside && extrapolation != 0) {
    // + extrapolation_value where any axis samples outside the input (those rows of A are zero).
    Shape os;
    for (const auto& ax : axes) os.push_back(ax.out);
    Tensor mask(DType::FP32, os);
    std::vector<int64_t> pos(rank, 0);
    for (int64_t e = 0; e < mask.size(); ++e) {
      int64_t rest = e;
      bool in = true;
      for (size_t d = rank; d-- > 0;) {
        pos[d] = rest % os[d];
        rest /= os[d];
        in = in && inside[d][size_t(pos[d])];
      }
      mask.setFloat(e, in ? 0.0 : extrapolation);
    }
    x = im.b.add(x, im.constF(std::move(mask)), im.aux("extrapolation"));
  }
  return x;
}

// The general path for a Resize node (all attributes and constant inputs read here).
Status resizeGeneral(Importer& im, const NodeProto& n, OVal& x) {
  ResizeMode m;
  m.mode = im.attrStr(n, "mode", "nearest");
  m.ctm = im.attrStr(n, "coordinate_transformation_mode", "half_pixel");
  m.nearestMode = im.attrStr(n, "nearest_mode", "round_prefer_floor");
  m.cubicA = im.attrFloat(n, "cubic_coeff_a", -0.75f);
  m.excludeOutside = im.attrInt(n, "exclude_outside", 0) != 0;
  if (m.mode != "nearest" && m.mode != "linear" && m.mode != "cubic")
    return Status::invalid("Resize mode '" + m.mode + "'");
  static const std::set<std::string> kTransforms = {"half_pixel", "pytorch_half_pixel",   "align_corners",
                                                    "asymmetric", "tf_half_pixel_for_nn", "tf_crop_and_resize"};
  if (!kTransforms.count(m.ctm)) return Status::invalid("Resize coordinate_transformation_mode '" + m.ctm + "'");
  static const std::set<std::string> kNearest = {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  if (!kNearest.count(m.nearestMode)) return Status::invalid("Resize nearest_mode '" + m.nearestMode + "'");
  m.antialias = im.attrInt(n, "antialias", 0) != 0;  // nearest ignores it
  const size_t rank = x.shape.size();
  // Opset 18: scales/sizes/roi list only the resized `axes`; the others keep their length.
  std::vector<int64_t> resized;
  if (auto a = im.attrInts(n, "axes")) {
    for (int64_t v : *a) {
      const int64_t d = normAxis(v, int64_t(rank));
      if (d < 0 || d >= int64_t(rank) || std::count(resized.begin(), resized.end(), d))
        return Status::invalid("Resize axes value " + std::to_string(v) + " is out of range or repeated");
      resized.push_back(d);
    }
  } else {
    for (size_t d = 0; d < rank; ++d) resized.push_back(int64_t(d));
  }
  const size_t na = resized.size();
  const std::string policy = im.attrStr(n, "keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller")
    return Status::invalid("Resize keep_aspect_ratio_policy '" + policy + "'");
  std::vector<ResizeAxis> axes(rank);
  for (size_t d = 0; d < rank; ++d) axes[d] = {x.shape[d], x.shape[d], 1.0};
  if (im.hasInput(n, 3)) {
    auto sz = im.constInput(n, 3, "sizes");
    if (!sz) return sz.status();
    auto v = (*sz)->toInts();
    if (v.size() != na)
      return Status::invalid("Resize sizes has " + std::to_string(v.size()) + " values for " + std::to_string(na) +
                             " axes");
    for (size_t k = 0; k < na; ++k) {
      const int64_t d = resized[k];
      axes[size_t(d)] = {x.shape[size_t(d)], v[k], double(v[k]) / double(x.shape[size_t(d)])};
    }
    if (policy != "stretch") {
      // One scale for all resized axes (the smallest / largest), out = round(scale * in) (halves up).
      double sc = axes[size_t(resized[0])].scale;
      for (int64_t d : resized)
        sc = policy == "not_larger" ? std::min(sc, axes[size_t(d)].scale) : std::max(sc, axes[size_t(d)].scale);
      for (int64_t d : resized) {
        ResizeAxis& ax = axes[size_t(d)];
        ax.scale = sc;
        ax.out = int64_t(std::floor(sc * double(ax.in) + 0.5));
      }
    }
  } else {
    auto sc = im.constInput(n, 2, "scales");
    if (!sc) return sc.status();
    if ((*sc)->size() != int64_t(na))
      return Status::invalid("Resize scales has " + std::to_string((*sc)->size()) + " values for " +
                             std::to_string(na) + " axes");
    for (size_t k = 0; k < na; ++k) {
      const size_t d = size_t(resized[k]);
      const double s = (*sc)->getFloat(int64_t(k));
      if (!(s > 0)) return Status::invalid("Resize scale " + std::to_string(s) + " must be positive");
      if (!(double(x.shape[d]) * s < 0x1p62))
        return Status::invalid("Resize scale " + std::to_string(s) + " is too large");
      axes[d] = {x.shape[d], int64_t(std::floor(double(x.shape[d]) * s)), s};
    }
  }
  for (size_t d = 0; d < rank; ++d)
    if (axes[d].out < 1) return Status::invalid("Resize output dim " + std::to_string(d) + " is empty");
  // The matrix form builds an in x out matrix per axis and maybe an output-sized mask: check them first.
  Shape outShape;
  for (size_t d = 0; d < rank; ++d) {
    outShape.push_back(axes[d].out);
    TK_RETURN_IF_ERROR(
        checkAllocation(DType::FP64, {axes[d].in, axes[d].out}, "the Resize matrix of axis " + std::to_string(d)));
  }
  TK_RETURN_IF_ERROR(checkAllocation(DType::FP32, outShape, "the Resize result"));
  if (m.ctm == "tf_crop_and_resize") {
    auto roi = im.constInput(n, 1, "roi");
    if (!roi) return roi.status();
    if ((*roi)->size() != int64_t(2 * na)) return Status::invalid("Resize roi must have 2 values per resized axis");
    for (size_t k = 0; k < na; ++k) {
      axes[size_t(resized[k])].roiStart = (*roi)->getFloat(int64_t(k));
      axes[size_t(resized[k])].roiEnd = (*roi)->getFloat(int64_t(k + na));
    }
  }
  auto xv = im.get(x, Layout::Plain);
  if (!xv) return xv.status();
  auto y = resizeByMatrices(im, *xv, m, axes, im.attrFloat(n, "extrapolation_value", 0.0f));
  if (!y) return y.status();
  Value* out = *y;
  if (out == *xv) out = im.b.op1("tosa.identity", {out}, out->type, {}, im.loc);
  return im.setResult(n, out, Layout::Plain);
}

// Resize (nearest / linear, 2-D spatial) -> tosa.resize. TOSA samples the input at y = (oy * d + offset) / n;
// nearest rounds half up. ONNX's coordinate transform and nearest rounding are mapped onto offset, with n and
// d doubled so that every half-unit shift is an integer.
Status opResize(Importer& im, const NodeProto& n) {
  OVal& x = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, x));
  const std::string mode = im.attrStr(n, "mode", "nearest");
  const std::string ctm = im.attrStr(n, "coordinate_transformation_mode", "half_pixel");
  const std::string nearestMode = im.attrStr(n, "nearest_mode", "round_prefer_floor");
  // tosa.resize: 4-D, nearest/linear, these transforms; everything else takes the matrix form.
  if (x.shape.size() != 4 || (mode != "nearest" && mode != "linear") ||
      (ctm != "half_pixel" && ctm != "pytorch_half_pixel" && ctm != "asymmetric" && ctm != "align_corners") ||
      im.attrInt(n, "antialias", 0) != 0 || im.attr(n, "axes") || im.attr(n, "keep_aspect_ratio_policy"))
    return resizeGeneral(im, n, x);
  // Output size and scale per spatial axis: scales (input 2) or sizes (input 3).
  int64_t out[2];
  std::pair<int64_t, int64_t> scale[2];
  std::optional<std::pair<int64_t, int64_t>> alignScale[2];  // align_corners sampling step when from scales
  const int64_t in[2] = {x.shape[2], x.shape[3]};
  if (im.hasInput(n, 3)) {
    auto sz = im.constInput(n, 3, "sizes");
    if (!sz) return sz.status();
    auto v = (*sz)->toInts();
    if (v.size() != 4 || v[0] != x.shape[0] || v[1] != x.shape[1]) return resizeGeneral(im, n, x);
    for (int i = 0; i < 2; ++i) {
      out[i] = v[size_t(i) + 2];
      scale[i] = {out[i], in[i]};
    }
  } else {
    auto sc = im.constInput(n, 2, "scales");
    if (!sc) return sc.status();
    if ((*sc)->size() != 4 || (*sc)->getFloat(0) != 1.0 || (*sc)->getFloat(1) != 1.0) return resizeGeneral(im, n, x);
    for (int i = 0; i < 2; ++i) {
      double s = (*sc)->getFloat(i + 2);
      auto f = fraction(s);
      if (!f) return resizeGeneral(im, n, x);  // not a simple fraction
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
      if (nearestMode == "round_prefer_floor")
        offset -= 1;
      else if (nearestMode == "floor")
        offset -= sn / 2;
      else if (nearestMode == "ceil")
        offset += sn / 2 - 1;
      else if (nearestMode != "round_prefer_ceil")
        return resizeGeneral(im, n, x);
    }
    int64_t border = (out[i] - 1) * sd - (in[i] - 1) * sn + offset;
    if (offset < -sn || offset >= 16 * sn || border < -16 * sn || border >= sn || sn > 2048 || sd >= 16 * sn)
      return resizeGeneral(im, n, x);  // outside tosa.resize's limits
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

// Upsample (opsets 7-9; the version converter usually rewrites it to Resize first): out(x) = in(x / scale),
// i.e. a Resize with coordinate_transformation_mode asymmetric; nearest picks floor(x / scale) (an integer
// scale repeats each element). Lowered as that Resize node. Scales: attribute (opset 7) or input 1 (opset 9).
Status opUpsample(Importer& im, const NodeProto& n) {
  std::string mode = im.attrStr(n, "mode", "nearest");
  if (mode == "bilinear") mode = "linear";  // Upsample-1's name for it
  if (mode != "nearest" && mode != "linear") return Status::invalid("Upsample mode '" + mode + "'");
  NodeProto r;
  r.set_op_type("Resize");
  r.set_name(n.name());
  r.add_input(n.input(0));
  r.add_input("");
  if (im.hasInput(n, 1)) {
    r.add_input(n.input(1));
  } else {
    auto sc = im.attrFloats(n, "scales");
    if (!sc) return Status::invalid("Upsample needs scales (attribute or input 1)");
    OVal sv;
    sv.shape = {int64_t(sc->size())};
    sv.c = std::make_shared<const Tensor>(
        Tensor::fromDoubles(DType::FP32, sv.shape, std::vector<double>(sc->begin(), sc->end())));
    const std::string name = n.output(0) + "#scales";
    im.vals[name] = std::move(sv);
    r.add_input(name);
  }
  r.add_output(n.output(0));
  auto strAttr = [&](const char* name, const std::string& v) {
    auto* a = r.add_attribute();
    a->set_name(name);
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(v);
  };
  strAttr("mode", mode);
  strAttr("coordinate_transformation_mode", "asymmetric");
  strAttr("nearest_mode", "floor");
  return im.lowerSynthetic(r);
}

}  // namespace

void registerResizeOps(HandlerTable& t) {
  t["Resize"] = opResize;
  t["Upsample"] = opUpsample;
}

}  // namespace tosakit::onnx

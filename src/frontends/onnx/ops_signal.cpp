// ONNX lowerings: DFT, STFT, window functions, MelWeightMatrix, Det.
//
// With static shapes a DFT is a linear map: one tosa.matmul by a constant [L*c, K*2] matrix built at import
// (c = 1 for a real, 2 for a complex signal; K output bins). Window functions and MelWeightMatrix depend only
// on their (bound) scalar inputs and become constants. Det is Leibniz's formula over slices of the matrix.
#include <cmath>
#include <numeric>

#include "core/size_budget.h"
#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

constexpr double kPi = 3.14159265358979323846;

// A constant scalar input (rank 0 or one element).
Result<double> scalarInput(Importer& im, const NodeProto& n, int i, const char* what) {
  auto t = im.constInput(n, i, what);
  if (!t) return t.status();
  if ((*t)->size() != 1) return Status::invalid(std::string(what) + " must be a scalar");
  return isFloat((*t)->dtype()) ? (*t)->getFloat(0) : double((*t)->getInt(0));
}

// output_datatype (a TensorProto data type) of the constant-producing ops; float32 unless TOSA lacks it.
Result<DType> outputDataType(Importer& im, const NodeProto& n) {
  auto dt = dtypeFromOnnx(int32_t(im.attrInt(n, "output_datatype", 1 /*FLOAT*/)), "output_datatype");
  if (!dt) return dt.status();
  if (!runtimeDType(*dt))
    return Status::unsupported("output_datatype " + std::string(dtypeName(*dt)) + " has no TOSA 1.0 equivalent");
  return *dt;
}

// ---- window functions: w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N), N = size (periodic) or size-1 ----

Status windowOp(Importer& im, const NodeProto& n, double a0, double a1, double a2) {
  auto size = scalarInput(im, n, 0, "size");
  if (!size) return size.status();
  if (!(*size >= 1 && *size < 0x1p62))  // before the int64 conversion (NaN, 1e300)
    return Status::invalid("window size " + std::to_string(*size) + " must be at least 1");
  const int64_t len = int64_t(*size);
  TK_RETURN_IF_ERROR(checkAllocationElements(len, 8, "the window"));
  auto dt = outputDataType(im, n);
  if (!dt) return dt.status();
  const bool periodic = im.attrInt(n, "periodic", 1) != 0;
  const double N = periodic ? double(len) : double(len - 1);
  std::vector<double> w(static_cast<size_t>(len));
  for (int64_t k = 0; k < len; ++k) {
    const double x = N > 0 ? 2 * kPi * double(k) / N : 0;
    w[size_t(k)] = a0 - a1 * std::cos(x) + a2 * std::cos(2 * x);
  }
  im.setConst(n, 0, castTensor(Tensor::fromDoubles(DType::FP64, {len}, w), *dt));
  return Status::ok();
}

Status opHannWindow(Importer& im, const NodeProto& n) { return windowOp(im, n, 0.5, 0.5, 0); }
// ONNX's Hamming coefficients: alpha = 25/46, beta = 1 - alpha.
Status opHammingWindow(Importer& im, const NodeProto& n) { return windowOp(im, n, 25.0 / 46, 21.0 / 46, 0); }
Status opBlackmanWindow(Importer& im, const NodeProto& n) { return windowOp(im, n, 0.42, 0.5, 0.08); }

// ---- MelWeightMatrix: triangular filters on the mel scale (ONNX's reference algorithm) ----

Status opMelWeightMatrix(Importer& im, const NodeProto& n) {
  auto bins = scalarInput(im, n, 0, "num_mel_bins");
  auto dftLen = scalarInput(im, n, 1, "dft_length");
  auto rate = scalarInput(im, n, 2, "sample_rate");
  auto lower = scalarInput(im, n, 3, "lower_edge_hertz");
  auto upper = scalarInput(im, n, 4, "upper_edge_hertz");
  for (auto* r : {&bins, &dftLen, &rate, &lower, &upper})
    if (!*r) return r->status();
  auto dt = outputDataType(im, n);
  if (!dt) return dt.status();
  for (double v : {*bins, *dftLen, *rate})  // before the int64 conversion (NaN, 1e300)
    if (!(v >= 1 && v < 0x1p62)) return Status::invalid("num_mel_bins, dft_length and sample_rate must be positive");
  const int64_t melBins = int64_t(*bins), dft = int64_t(*dftLen), sampleRate = int64_t(*rate);
  const int64_t spectrumBins = dft / 2 + 1;
  TK_RETURN_IF_ERROR(checkAllocation(DType::FP64, {spectrumBins, melBins}, "the MelWeightMatrix result"));
  auto toMel = [](double hz) { return 2595 * std::log10(1 + hz / 700); };
  const double lowMel = toMel(*lower), highMel = toMel(*upper);
  const double step = (highMel - lowMel) / double(melBins + 2);
  // Band edges as spectrum bin indices: floor((dft_length + 1) * hz / sample_rate).
  std::vector<int64_t> edge(size_t(melBins + 2));
  for (int64_t i = 0; i < melBins + 2; ++i) {
    const double hz = 700 * (std::pow(10.0, (double(i) * step + lowMel) / 2595) - 1);
    const double e = std::floor(double(dft + 1) * hz / double(sampleRate));
    if (!(std::fabs(e) < 0x1p62))
      return Status::invalid("MelWeightMatrix band edge out of range (lower/upper_edge_hertz)");
    edge[size_t(i)] = int64_t(e);
  }
  std::vector<double> w(size_t(spectrumBins * melBins), 0.0);
  auto at = [&](int64_t j, int64_t i) -> double* {
    return j >= 0 && j < spectrumBins ? &w[size_t(j * melBins + i)] : nullptr;
  };
  for (int64_t i = 0; i < melBins; ++i) {
    const int64_t left = edge[size_t(i)], center = edge[size_t(i + 1)], right = edge[size_t(i + 2)];
    if (center == left) {
      if (double* p = at(center, i)) *p = 1;
    } else {
      // Only bins inside the spectrum are written: the loops stay within it (edges may be far outside).
      for (int64_t j = std::max<int64_t>(left, 0); j <= std::min(center, spectrumBins - 1); ++j)
        if (double* p = at(j, i)) *p = double(j - left) / double(center - left);
    }
    for (int64_t j = std::max<int64_t>(center, 0); j < std::min(right, spectrumBins); ++j)
      if (double* p = at(j, i)) *p = double(right - j) / double(right - center);
  }
  im.setConst(n, 0, castTensor(Tensor::fromDoubles(DType::FP64, {spectrumBins, melBins}, w), *dt));
  return Status::ok();
}

// ---- DFT ----

// The [L*c, K*2] matrix of a length-`N` DFT over `L` samples (zero-padded or truncated to N) of a signal with
// `c` components (1 real, 2 complex), giving K bins as (re, im) pairs; inverse includes the 1/N.
Tensor dftMatrix(int64_t L, int64_t c, int64_t N, int64_t K, bool inverse) {
  std::vector<double> w(size_t(L * c * K * 2), 0.0);
  const double sign = inverse ? 1 : -1, scale = inverse ? 1.0 / double(N) : 1.0;
  for (int64_t t = 0; t < std::min(L, N); ++t)
    for (int64_t k = 0; k < K; ++k) {
      // e^{sign i theta}: (xr + i xi)(cos + i sign sin) = (xr cos - xi sign sin) + i (xr sign sin + xi cos)
      const double theta = 2 * kPi * double((t * k) % N) / double(N);
      const double cs = std::cos(theta) * scale, sn = sign * std::sin(theta) * scale;
      const int64_t col = k * 2;
      w[size_t((t * c) * K * 2 + col)] = cs;
      w[size_t((t * c) * K * 2 + col + 1)] = sn;
      if (c == 2) {
        w[size_t((t * c + 1) * K * 2 + col)] = -sn;
        w[size_t((t * c + 1) * K * 2 + col + 1)] = cs;
      }
    }
  return Tensor::fromDoubles(DType::FP32, {1, L * c, K * 2}, w);
}

// x: [..., L, c] float32 with the transform axis second to last; returns [..., K, 2].
Value* dftLastAxis(Importer& im, Value* x, int64_t N, int64_t K, bool inverse) {
  const Shape s = x->type.dims;
  const int64_t L = s[s.size() - 2], c = s.back();
  int64_t rows = 1;
  for (size_t d = 0; d + 2 < s.size(); ++d) rows *= s[d];
  Value* flat = im.reshapeTo(x, {1, rows, L * c}, im.aux("rows"));
  Value* y = im.matmul3(flat, im.constF(dftMatrix(L, c, N, K, inverse)));
  Shape out(s.begin(), s.end() - 2);
  out.push_back(K);
  out.push_back(2);
  return im.reshapeTo(y, out, im.aux("bins"));
}

Status opDFT(Importer& im, const NodeProto& n) {
  OVal& xv = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, xv));
  const int64_t rank = int64_t(xv.shape.size());
  if (rank < 3 || (xv.shape.back() != 1 && xv.shape.back() != 2))
    return Status::invalid("DFT input must be [batch, ..., 1 or 2], got " + shapeToString(xv.shape));
  int64_t axis = im.attrInt(n, "axis", 1);
  if (im.hasInput(n, 2)) {  // opset 20 moves axis to an input
    auto a = scalarInput(im, n, 2, "axis");
    if (!a) return a.status();
    axis = int64_t(*a);
  }
  axis = normAxis(axis, rank);
  if (axis < 1 || axis > rank - 2) return Status::invalid("DFT axis " + std::to_string(axis) + " is out of range");
  const int64_t L = xv.shape[size_t(axis)];
  int64_t N = L;
  if (im.hasInput(n, 1)) {
    auto d = scalarInput(im, n, 1, "dft_length");
    if (!d) return d.status();
    N = int64_t(*d);
    if (N < 1) return Status::invalid("dft_length " + std::to_string(N) + " must be positive");
  }
  const bool inverse = im.attrInt(n, "inverse", 0) != 0, onesided = im.attrInt(n, "onesided", 0) != 0;
  if (onesided && inverse) return Status::unsupported("an inverse one-sided DFT");
  const int64_t K = onesided ? N / 2 + 1 : N;
  auto x = im.get(xv, Layout::Plain);
  if (!x) return x.status();
  // Move the axis next to the component dim, transform, move it back.
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank - 1; ++d)
    if (d != axis) perm.push_back(d);
  perm.push_back(axis);
  perm.push_back(rank - 1);
  const bool moved = axis != rank - 2;
  Value* v = moved ? im.b.transpose(*x, perm, im.aux("to_last")) : *x;
  Value* y = dftLastAxis(im, v, N, K, inverse);
  if (moved) {
    std::vector<int64_t> back(static_cast<size_t>(rank));
    for (int64_t d = 0; d < rank; ++d) back[size_t(perm[size_t(d)])] = d;
    y = im.b.transpose(y, back, im.aux("from_last"));
  }
  return im.setResult(n, y, Layout::Plain);
}

// ---- STFT: frames (slices) times the window, then the DFT ----

Status opSTFT(Importer& im, const NodeProto& n) {
  OVal& sv = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, sv));
  if (sv.shape.size() != 3 || (sv.shape[2] != 1 && sv.shape[2] != 2))
    return Status::invalid("STFT signal must be [batch, length, 1 or 2], got " + shapeToString(sv.shape));
  auto stepIn = scalarInput(im, n, 1, "frame_step");
  if (!stepIn) return stepIn.status();
  const int64_t step = int64_t(*stepIn);
  const bool hasWindow = im.hasInput(n, 2);
  int64_t frameLen = hasWindow ? (im.val(n, 2).shape.empty() ? 1 : im.val(n, 2).shape[0]) : 0;
  if (im.hasInput(n, 3)) {
    auto fl = scalarInput(im, n, 3, "frame_length");
    if (!fl) return fl.status();
    if (hasWindow && int64_t(*fl) != frameLen)
      return Status::invalid("frame_length " + std::to_string(int64_t(*fl)) + " differs from the window length " +
                             std::to_string(frameLen));
    frameLen = int64_t(*fl);
  }
  const int64_t B = sv.shape[0], len = sv.shape[1], c = sv.shape[2];
  if (frameLen < 1 || frameLen > len) return Status::invalid("frame_length must be in [1, signal length]");
  if (step < 1) return Status::invalid("frame_step must be positive");
  const int64_t frames = (len - frameLen) / step + 1;
  const bool onesided = im.attrInt(n, "onesided", 1) != 0;
  if (onesided && c == 2) return Status::invalid("a one-sided STFT of a complex signal");
  const int64_t K = onesided ? frameLen / 2 + 1 : frameLen;
  auto x = im.get(sv, Layout::Plain);
  if (!x) return x.status();
  std::vector<Value*> parts;
  for (int64_t f = 0; f < frames; ++f) {
    Value* s = im.b.op1("tosa.slice", {*x, im.b.constShape({0, f * step, 0}), im.b.constShape({B, frameLen, c})},
                        ValueType::tensor(DType::FP32, {B, frameLen, c}), {}, im.aux("frame"));
    parts.push_back(im.reshapeTo(s, {B, 1, frameLen, c}, im.aux("frame")));
  }
  Value* framed = parts.size() == 1
      ? parts[0]
      : im.b.op1("tosa.concat", parts, ValueType::tensor(DType::FP32, {B, frames, frameLen, c}),
                 {{"axis", ir::Attribute::integer(1, DType::I32)}}, im.aux("frames"));
  if (hasWindow) {
    OVal& wv = im.val(n, 2);
    TK_RETURN_IF_ERROR(im.requireFloat(n, wv));
    auto w = im.get(wv, Layout::Plain);
    if (!w) return w.status();
    framed = im.mul(framed, im.reshapeTo(*w, {1, 1, frameLen, 1}, im.aux("window")));
  }
  Value* y = dftLastAxis(im, framed, frameLen, K, /*inverse=*/false);
  return im.setResult(n, y, Layout::Plain);
}

// ---- Det: Leibniz's formula, sum over permutations of sign * prod a[i][sigma(i)] ----

Status opDet(Importer& im, const NodeProto& n) {
  OVal& xv = im.val(n, 0);
  TK_RETURN_IF_ERROR(im.requireFloat(n, xv));
  const Shape& s = xv.shape;
  if (s.size() < 2 || s[s.size() - 1] != s[s.size() - 2])
    return Status::invalid("Det input must be [..., M, M], got " + shapeToString(s));
  const int64_t M = s.back();
  constexpr int64_t kMaxM = 4;  // 24 products; larger matrices would need pivoting (data-dependent)
  if (M > kMaxM)
    return Status::unsupported("Det of " + std::to_string(M) + "x" + std::to_string(M) +
                               " matrices (Leibniz's formula is unrolled up to 4x4)");
  Shape batch(s.begin(), s.end() - 2);
  int64_t rows = 1;
  for (int64_t d : batch) rows *= d;
  auto x = im.get(xv, Layout::Plain);
  if (!x) return x.status();
  Value* flat = im.reshapeTo(*x, {rows, M * M}, im.aux("entries"));
  std::vector<Value*> entry(size_t(M * M));
  for (int64_t e = 0; e < M * M; ++e)
    entry[size_t(e)] = im.b.op1("tosa.slice", {flat, im.b.constShape({0, e}), im.b.constShape({rows, 1})},
                                ValueType::tensor(DType::FP32, {rows, 1}), {}, im.aux("entry"));
  std::vector<int64_t> perm(static_cast<size_t>(M));
  std::iota(perm.begin(), perm.end(), 0);
  Value* det = nullptr;
  do {
    int inversions = 0;
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = i + 1; j < M; ++j) inversions += perm[size_t(i)] > perm[size_t(j)];
    Value* term = entry[size_t(perm[0])];
    for (int64_t i = 1; i < M; ++i) term = im.mul(term, entry[size_t(i * M + perm[size_t(i)])]);
    if (!det)
      det = inversions % 2 ? im.b.sub(im.scalarF(0, 2), term, im.aux("neg")) : term;
    else
      det = inversions % 2 ? im.b.sub(det, term, im.aux("sub")) : im.b.add(det, term, im.aux("add"));
  } while (std::next_permutation(perm.begin(), perm.end()));
  Value* y = im.b.reshape(det, batch, im.loc);
  im.setValue(n, 0, y, Layout::Plain);
  return Status::ok();
}

}  // namespace

void registerSignalOps(HandlerTable& t) {
  t["HannWindow"] = opHannWindow;
  t["HammingWindow"] = opHammingWindow;
  t["BlackmanWindow"] = opBlackmanWindow;
  t["MelWeightMatrix"] = opMelWeightMatrix;
  t["DFT"] = opDFT;
  t["STFT"] = opSTFT;
  t["Det"] = opDet;
}

}  // namespace tosakit::onnx

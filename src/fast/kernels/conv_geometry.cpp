#include "fast/kernels/conv_geometry.h"

#include "fast/kernels/chain_operands.h"

namespace tosakit::fast {
namespace {

// The type rows of the CONV table handled here (others: null kernel, reference fallback).
bool supportedTypes(DType in, DType w, DType out, DType acc) {
  if (in != w) return false;
  if (in == DType::FP32) return out == DType::FP32 && acc == DType::FP32;
  if (in == DType::BF16) return out == DType::BF16 && acc == DType::FP32;
  if (in == DType::FP16) return out == DType::FP16 && (acc == DType::FP16 || acc == DType::FP32);
  if (in == DType::I8) return out == DType::I32 && acc == DType::I32;
  return false;
}

}  // namespace

std::optional<ConvGeom> parseConv(const OpChain& c, ConvKind kind) {
  const ir::Operation& op = *c.ops[0];
  if (op.operands.size() != 5 || op.results.size() != 1) return std::nullopt;
  const ir::ValueType &in = operandType(c, 0, 0), &w = operandType(c, 0, 1), &b = operandType(c, 0, 2),
                      &out = resultType(c, 0);
  if (!isStatic(in) || !isStatic(w) || !isStatic(b) || !isStatic(out)) return std::nullopt;
  if (in.rank() != 4 || w.rank() != 4 || out.rank() != 4 || b.rank() != 1 || b.dtype != out.dtype) return std::nullopt;
  auto acc = accType(op);
  auto izp = zeroPoint(c, 0, 3), wzp = zeroPoint(c, 0, 4);
  if (!acc || !izp || !wzp || *wzp != 0 || !supportedTypes(in.dtype, w.dtype, out.dtype, *acc)) return std::nullopt;
  if (!constOperand(c, 0, 1)) return std::nullopt;  // weights must be packed at compile time

  ConvGeom g;
  g.kind = kind;
  g.inT = in.dtype;
  g.outT = out.dtype;
  g.inputZp = *izp;
  g.N = in.dims[0], g.IH = in.dims[1], g.IW = in.dims[2], g.IC = in.dims[3];
  g.OH = out.dims[1], g.OW = out.dims[2];
  g.BC = b.dims[0];
  if (out.dims[0] != g.N) return std::nullopt;
  if (kind == ConvKind::Transpose) {
    g.OC = w.dims[0], g.KH = w.dims[1], g.KW = w.dims[2];
    const std::vector<int64_t> op_ = op.intArrayAttr("out_pad"), st = op.intArrayAttr("stride");
    if (op_.size() != 4 || st.size() != 2 || st[0] < 1 || st[1] < 1 || w.dims[3] != g.IC) return std::nullopt;
    if (g.OH != (g.IH - 1) * st[0] + op_[0] + op_[1] + g.KH || g.OW != (g.IW - 1) * st[1] + op_[2] + op_[3] + g.KW)
      return std::nullopt;
    // oneDNN 2.6's int8 deconvolution leaves outputs no tap reaches unwritten when the kernel is smaller than
    // the stride (tests/fast/onednn_conv_test.cpp): not handled. (Its zero points are inexact too, so an input
    // zero point is compensated in our epilogue instead, as for conv2d: addInputZeroPointCompensation in onednn/conv_exact_int8.cpp.)
    if (g.inT == DType::I8 && (g.KH < st[0] || g.KW < st[1])) return std::nullopt;
    g.strides = {st[0], st[1]};
    g.dilates = {0, 0};
    // TOSA: oy = iy * stride + ky + out_pad_top; oneDNN: oy = iy * stride + ky - padding_l.
    g.padL = {-op_[0], -op_[2]};
    g.padR = {-op_[1], -op_[3]};
  } else {
    const std::optional<ConvWindow> win = convWindow(op);
    if (!win) return std::nullopt;
    const std::vector<int64_t>&pad = win->pad, &st = win->stride, &dil = win->dilation;
    if (kind == ConvKind::Conv2d) {
      g.OC = w.dims[0], g.KH = w.dims[1], g.KW = w.dims[2];
      if (w.dims[3] != g.IC) return std::nullopt;
    } else {
      g.KH = w.dims[0], g.KW = w.dims[1];
      if (w.dims[2] != g.IC) return std::nullopt;
      g.G = g.IC;
      g.OC = g.IC * w.dims[3];
    }
    // OH/OW exactly as the spec's ERROR_IFs require (otherwise the reference kernel reports the error).
    const int64_t nh = g.IH - 1 + pad[0] + pad[1] - (g.KH - 1) * dil[0],
                  nw = g.IW - 1 + pad[2] + pad[3] - (g.KW - 1) * dil[1];
    if (nh < 0 || nw < 0 || nh % st[0] != 0 || nw % st[1] != 0 || g.OH != nh / st[0] + 1 || g.OW != nw / st[1] + 1)
      return std::nullopt;
    g.strides = {st[0], st[1]};
    g.dilates = {dil[0] - 1, dil[1] - 1};
    g.padL = {pad[0], pad[2]};
    g.padR = {pad[1], pad[3]};
  }
  if (out.dims[3] != g.OC || (g.BC != g.OC && g.BC != 1)) return std::nullopt;
  return g;
}

bool isPerTapTransposeConv(const OpChain& c, const ConvGeom& g) {
  const std::vector<int64_t> outPad = c.ops[0]->intArrayAttr("out_pad");
  return g.kind == ConvKind::Transpose && !g.isInt() && g.KH == g.strides[0] && g.KW == g.strides[1] &&
      outPad == std::vector<int64_t>{0, 0, 0, 0} && c.constants[0].size() > 2 && c.constants[0][2] != nullptr;
}

}  // namespace tosakit::fast

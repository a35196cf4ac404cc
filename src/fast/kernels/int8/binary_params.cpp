// The quantized-op parameters the fused int8 binary kernel (kernels/int8/binary.cpp) and the other int8 kernels
// read off a chain (kernels/int8/binary.h): rescales, their lookup tables, absorbable producers, clamp bounds.
#include <limits>

#include "fast/kernels/int8/binary.h"

namespace tosakit::fast {
namespace {

constexpr int64_t kI32Max = std::numeric_limits<int32_t>::max();

}  // namespace

std::optional<RescaleSpec> parseRescale(const ir::Operation& op, const std::vector<const Tensor*>& consts) {
  if (op.name != "tosa.rescale" || op.operands.size() != 5 || op.results.size() != 1) return std::nullopt;
  for (int j = 1; j < 5; ++j)
    if (!consts[size_t(j)]) return std::nullopt;
  if (op.boolAttr("input_unsigned") || op.boolAttr("output_unsigned") || !op.boolAttr("scale32", true))
    return std::nullopt;
  const std::string mode = op.strAttr("rounding_mode", "SINGLE_ROUND");
  if (mode != "SINGLE_ROUND" && mode != "DOUBLE_ROUND" && mode != "INEXACT_ROUND") return std::nullopt;
  const Tensor &mult = *consts[1], &shift = *consts[2], &izp = *consts[3], &ozp = *consts[4];
  if (izp.size() != 1 || ozp.size() != 1 || mult.size() != shift.size() || mult.size() < 1) return std::nullopt;
  const Shape& in = op.operands[0]->type.dims;
  const int64_t nc = op.boolAttr("per_channel") ? (in.empty() ? 0 : in.back()) : 1;
  if (mult.size() != nc) return std::nullopt;
  RescaleSpec s;
  s.multiplier = mult.toInts();
  s.shift = shift.toInts();
  for (size_t c = 0; c < s.multiplier.size(); ++c)  // out of range: a REQUIRE, the reference's verdict
    if (s.multiplier[c] < 0 || s.multiplier[c] > kI32Max || s.shift[c] < 2 || s.shift[c] > 62) return std::nullopt;
  s.inputZp = izp.getInt(0);
  s.outputZp = ozp.getInt(0);
  s.doubleRound = mode == "DOUBLE_ROUND";
  return s;
}

// Values breaking the range: the binary pass rescales, and checks, them one by one.
std::vector<int32_t> rescaleLut(const RescaleSpec& s, const std::vector<int8_t>& table) {
  std::vector<int32_t> lut;
  if (s.multiplier.size() != 1) return lut;
  for (int64_t v = -128; v < 128; ++v) {
    const int64_t x = table.empty() ? v : table[size_t(v + 128)];
    std::optional<int32_t> r = scaleValue(s, 0, x - s.inputZp);
    if (!r) return {};
    lut.push_back(*r);
  }
  return lut;
}

// The first operand's rescale, held back by the plan (OpChain::Producer) when nothing else uses its result:
// computed here when it is an exact i8/i16 -> i32 rescale.
std::optional<RescaleSpec> absorbableRescale(const OpChain::Producer& p) {
  if (!p.op) return std::nullopt;
  auto spec = parseRescale(*p.op, p.constants);
  if (!spec) return std::nullopt;
  const DType t = p.op->operands[0]->type.dtype;
  if ((t != DType::I8 && t != DType::I16) || p.op->results[0]->type.dtype != DType::I32) return std::nullopt;
  if ((t != DType::I8 && spec->inputZp != 0) || spec->outputZp != 0) return std::nullopt;  // ERROR_IFs
  return spec;
}

std::optional<std::pair<int64_t, int64_t>> quantClampBounds(const ir::Operation& cl, DType t, int64_t lo, int64_t hi) {
  if (cl.name != "tosa.clamp" || cl.results.size() != 1 || cl.results[0]->type.dtype != t) return std::nullopt;
  const ir::Attribute *min = cl.attr("min_val"), *max = cl.attr("max_val");
  if (!min || !max || min->kind != ir::Attribute::Kind::Int || max->kind != ir::Attribute::Kind::Int)
    return std::nullopt;
  if (min->i > max->i || min->i < lo || max->i > hi) return std::nullopt;
  return std::make_pair(min->i, max->i);
}

}  // namespace tosakit::fast

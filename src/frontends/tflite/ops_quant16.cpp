// Pre-quantized int16 activations (TFLite's 16x8 scheme, zero point 0) whose TFLite kernel is a function of
// one int16 value: the import evaluates TFLite's arithmetic on all 65536 inputs and the graph looks the result up
// with tosa.gather (tosa.table's int16 form interpolates on the raw input, which TFLite's kernels do not), so
// the graph equals TFLite's kernel bit for bit by construction.
#include <functional>

#include "frontends/tflite/tflite_fixedpoint.h"
#include "frontends/tflite/tflite_internal.h"
#include "frontends/tflite/tflite_quant.h"

namespace tosakit::tflite {
namespace {

constexpr int64_t kInt16Values = 65536;

// x (int16) mapped through f: index x + 32768 gathered from the 65536-entry int16 table of f.
Status gatherTable16(Importer& im, const QParams& y, const std::function<int16_t(int16_t)>& f) {
  Tensor table(DType::I16, {1, kInt16Values, 1});
  for (int32_t v = -32768; v <= 32767; ++v) table.setInt(v + 32768, f(int16_t(v)));
  auto xv = im.get(0);
  if (!xv) return xv.status();
  const Shape& xs = im.in(0).shape;
  const int64_t count = numElements(xs);
  const size_t rank = xs.size();
  Value* wide = im.b.op1("tosa.cast", {*xv}, ValueType::tensor(DType::I32, xs), {}, im.aux("x_i32"));
  Value* index = im.b.add(wide, im.scalarOf(DType::I32, 32768, rank), im.aux("index"));
  Value* gathered =
      im.b.op1("tosa.gather", {im.constant(std::move(table), "table"), im.b.reshape(index, {1, count}, im.aux("flat"))},
               ValueType::tensor(DType::I16, {1, count, 1}), {}, im.aux("lookup"));
  return setQuantOut(im, 0, im.b.reshape(gathered, xs, im.aux("table_shaped")), fb::ActivationFunctionType::NONE, y);
}

// Input and output parameters TFLite's int16 kernels accept: zero points 0, output scale 2^-15.
Result<std::pair<QParams, QParams>> int16UnaryParams(Importer& im) {
  if (im.out(0).dtype != DType::I16) return Status::unsupported("int16 operator with a non-int16 output");
  auto x = perTensor(im.in(0), "input");
  if (!x) return x.status();
  auto y = perTensor(im.out(0), "output");
  if (!y) return y.status();
  if (x->zp != 0 || y->zp != 0) return Status::unsupported("int16 activations with a non-zero zero point");
  return std::pair{*x, *y};
}

}  // namespace

// TFLite 2.9 takes the interpolated sigmoid table (reference_integer_ops) unless the input scale is 2^-12 (TANH:
// also 2^-11, to within CheckedLog2's tolerance): those take gemmlowp's fixed-point kernel, not reproduced here.
Status int16SigmoidOrTanh(Importer& im, bool tanh) {
  auto q = int16UnaryParams(im);
  if (!q) return q.status();
  const auto& [x, y] = *q;
  int outLog2 = 0;
  if (!fixedpoint::checkedLog2(float(y.scale), outLog2) || outLog2 != -15)
    return Status::unsupported("int16 LOGISTIC/TANH whose output scale is not 2^-15 (TFLite refuses it)");
  int inLog2 = 0;
  if (fixedpoint::checkedLog2(float(x.scale), inLog2) && (12 + inLog2 == 0 || (tanh && 12 + inLog2 == 1)))
    return Status::unsupported("int16 LOGISTIC/TANH with input scale 2^" + std::to_string(inLog2) +
                               " (TFLite's gemmlowp kernel for that scale is not reproduced)");
  int32_t multiplier = 0;
  int shift = 0;
  fixedpoint::sigmoidInputMultiplier(float(x.scale), multiplier, shift);
  return gatherTable16(im, y, [&](int16_t v) { return fixedpoint::sigmoidOrTanh16(v, multiplier, shift, tanh); });
}

}  // namespace tosakit::tflite

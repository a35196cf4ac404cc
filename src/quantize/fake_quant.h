// Fake quantization for calibration's tuning steps (auto-tune 7.4.2, bias correction 7.5.2, threshold
// search 7.5.3): float tensors rounded to the int8 grid and back, and a runner that executes a function's
// top-level ops one at a time (each as a one-op module on the configured backend) so that any tensor can be
// replaced by its fake-quantized form before its consumers see it.
#pragma once
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"
#include "tosakit/session.h"

namespace tosakit::quantize {

// x -> clamp(round(x / s), -128, 127) * s with s = threshold / 127 (symmetric int8, 6.1).
Tensor fakeQuantize(const Tensor& t, double threshold);
// Weight operand of a conv/matmul-like op (operand 1 of conv2d, conv3d, depthwise_conv2d,
// transpose_conv2d, matmul), or -1.
int weightOperandIndex(const ir::Operation& op);
// Weights fake-quantized symmetrically per output channel (int8, threshold = the channel's max |w|).
Tensor fakeQuantizeWeights(const Tensor& w, const ir::Operation& op);
// Output channel of weight element i (the layouts of TOSA's conv/matmul weights).
int64_t weightOutputChannel(const Tensor& w, const std::string& opName, int64_t i);
int64_t weightOutputChannels(const Tensor& w, const std::string& opName);

// The defining tosa.const of v, or null.
const ir::Operation* constProducer(const ir::Value* v);

class OpRunner {
 public:
  explicit OpRunner(SessionOptions opts) : opts_(std::move(opts)) {}
  // Runs one op on `activations` (one tensor per operand that is not a constant, in operand order); the
  // op's constants are copied, its weight fake-quantized when `quantizeWeights`. Ops with regions: Unsupported.
  Status runOp(const ir::Operation& op, const std::vector<Tensor>& activations, bool quantizeWeights,
               std::vector<Tensor>& results);

 private:
  SessionOptions opts_;
  std::map<std::pair<const ir::Operation*, bool>, std::unique_ptr<Session>> sessions_;
};

// Calls f(value, name, topLevel) for every argument and every op result Session captures, in its order and
// with its names (intermediateName, "#2"... for repeats, ops inside regions included, constants not).
void forEachTensorName(const ir::Function& fn,
                       const std::function<void(const ir::Value*, const std::string&, bool topLevel)>& f);
// Names of the function's top-level values as Session captures them (arguments by inputName).
std::map<const ir::Value*, std::string> topLevelValueNames(const ir::Function& fn);

// Runs `fn` op by op. After an argument or op result is produced, `onValue(name, tensor)` may change it
// (fake quantization) before its consumers read it. Fills `outputs` in result order.
using ValueHook = std::function<void(const std::string& name, Tensor& t)>;
Status runOpByOp(OpRunner& runner, const ir::Function& fn, const NamedTensors& inputs, bool quantizeWeights,
                 const ValueHook& onValue, std::vector<Tensor>& outputs);

}  // namespace tosakit::quantize

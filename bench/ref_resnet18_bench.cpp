// What the golden model costs: the reference backend on a ResNet-18-sized int8 graph (224x224 input, the 20
// convolutions of ResNet-18 with rescale/clamp after each, residual adds, max/avg pooling, fully connected),
// built with the builder API and random weights from a fixed seed. Not a speed goal: reported for planning.
#include <benchmark/benchmark.h>

#include <random>

#include "ir/builder.h"
#include "tosakit/session.h"

namespace {

using namespace tosakit;
using ir::Attribute;
using ir::Builder;
using ir::Value;
using ir::ValueType;

class ResNetBuilder {
 public:
  explicit ResNetBuilder(Builder& b) : b_(b), rng_(1234) {}

  Value* weights(Shape s) {
    Tensor t(DType::I8, s);
    std::uniform_int_distribution<int> d(-20, 20);
    for (int64_t i = 0; i < t.size(); ++i) t.setInt(i, d(rng_));
    return b_.constant(t);
  }
  Value* bias(int64_t n) {
    Tensor t(DType::I32, {n});
    std::uniform_int_distribution<int> d(-500, 500);
    for (int64_t i = 0; i < n; ++i) t.setInt(i, d(rng_));
    return b_.constant(t);
  }
  // conv (i8 -> i32) -> rescale (-> i8) -> optional relu clamp
  Value* convBlock(Value* x, int64_t outC, int64_t k, int64_t stride, bool relu) {
    int64_t inC = x->type.dims[3];
    int64_t pad = k / 2;
    ir::Conv2dAttrs a;
    a.pad = {pad, pad, pad, pad};
    a.stride = {stride, stride};
    int64_t h = x->type.dims[1];
    // TOSA's output size is an exact division (ERROR_IF on OH): trim bottom/right padding rows the window never
    // reads, or, with no padding to trim (1x1 stride 2), slice those input rows off as converters do.
    int64_t rem = (h - 1 + 2 * pad - (k - 1)) % stride;
    if (rem > pad) {
      Value* start = b_.constShape({0, 0, 0, 0});
      Value* size = b_.constShape({1, h - rem, h - rem, inC});
      x = b_.op1("tosa.slice", {x, start, size}, ValueType::tensor(DType::I8, {1, h - rem, h - rem, inC}));
    } else {
      a.pad[1] -= rem;
      a.pad[3] -= rem;
    }
    Value* c = b_.conv2d(x, weights({outC, k, k, inC}), bias(outC), a, "conv" + std::to_string(++n_));
    ir::RescaleAttrs r;
    r.multiplier = {1518500250};
    r.shift = {40};
    r.roundingMode = "DOUBLE_ROUND";
    Value* y = b_.rescale(c, DType::I8, r, "rescale" + std::to_string(n_));
    return relu ? b_.clamp(y, 0, 127, "relu" + std::to_string(n_)) : y;
  }
  Value* basicBlock(Value* x, int64_t outC, int64_t stride) {
    Value* y = convBlock(x, outC, 3, stride, true);
    y = convBlock(y, outC, 3, 1, false);
    Value* shortcut = x;
    if (stride != 1 || x->type.dims[3] != outC) shortcut = convBlock(x, outC, 1, stride, false);
    // Residual add in i32 then back to i8, as quantized ResNets do.
    ir::RescaleAttrs up;
    up.multiplier = {1 << 30};
    up.shift = {30};
    Value* a = b_.rescale(y, DType::I32, up);
    Value* s = b_.rescale(shortcut, DType::I32, up);
    Value* sum = b_.add(a, s, "add" + std::to_string(n_));
    ir::RescaleAttrs down;
    down.multiplier = {1 << 30};
    down.shift = {31};
    return b_.clamp(b_.rescale(sum, DType::I8, down), 0, 127);
  }

 private:
  Builder& b_;
  std::mt19937 rng_;
  int n_ = 0;
};

std::unique_ptr<ir::Module> buildResNet18(int64_t size) {
  auto m = std::make_unique<ir::Module>();
  Builder b(*m, "main");
  ResNetBuilder rb(b);
  Value* x = b.input(ValueType::tensor(DType::I8, {1, size, size, 3}), "image");
  Value* y = rb.convBlock(x, 64, 7, 2, true);
  int64_t h = y->type.dims[1];
  int64_t oh = (h - 1) / 2 + 1;
  int64_t padB = (oh - 1) * 2 + 3 - h - 1;
  y = b.op1("tosa.max_pool2d", {y}, ValueType::tensor(DType::I8, {1, oh, oh, 64}),
            {{"kernel", Attribute::intArray({3, 3})},
             {"stride", Attribute::intArray({2, 2})},
             {"pad", Attribute::intArray({1, padB, 1, padB})}},
            "maxpool");
  for (int64_t c : {64, 128, 256, 512}) {
    y = rb.basicBlock(y, c, c == 64 ? 1 : 2);
    y = rb.basicBlock(y, c, 1);
  }
  int64_t fh = y->type.dims[1];
  Value* zp = b.scalar1(DType::I8, 0);
  y = b.op1("tosa.avg_pool2d", {y, zp, zp}, ValueType::tensor(DType::I8, {1, 1, 1, 512}),
            {{"kernel", Attribute::intArray({fh, fh})},
             {"stride", Attribute::intArray({1, 1})},
             {"pad", Attribute::intArray({0, 0, 0, 0})},
             {"acc_type", Attribute::type(DType::I32)}},
            "avgpool");
  // Fully connected as a 1x1 convolution over the pooled 1x1x512 map.
  y = rb.convBlock(y, 1000, 1, 1, false);
  b.output({y}, {"logits"});
  return m;
}

void BM_ReferenceResNet18Int8(benchmark::State& state) {
  int64_t size = state.range(0);
  auto session = Session::create(buildResNet18(size));
  if (!session) {
    state.SkipWithError(session.status().toString().c_str());
    return;
  }
  Tensor image(DType::I8, {1, size, size, 3});
  std::mt19937 rng(7);
  for (int64_t i = 0; i < image.size(); ++i) image.setInt(i, int(rng() % 256) - 128);
  for (auto _ : state) {
    RunResult r;
    Status s = (*session)->run({{"image", image}}, r);
    if (!s) {
      state.SkipWithError(s.toString().c_str());
      return;
    }
    benchmark::DoNotOptimize(r.outputs);
  }
  // ResNet-18 at 224x224: about 1.8 G multiply-accumulates.
  state.counters["MMAC_per_s"] =
      benchmark::Counter(1.8e3 * double(size * size) / (224.0 * 224.0), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_ReferenceResNet18Int8)->Arg(224)->Unit(benchmark::kSecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();

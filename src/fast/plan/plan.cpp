// ExecutionPlan execution: fast kernels, the finiteness guards of oneDNN steps, the reference fallback. Compiling
// is in plan_compile.cpp, constants and the arena in plan_memory.cpp.
#include "fast/plan/plan.h"
#include "fast/isa_dispatch.h"
#include "fast/plan/plan_internal.h"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstring>
#include <functional>
#include <map>

#include <omp.h>

#include "core/process_memory.h"
#include "core/size_budget.h"
#include "fast/kernels/common.h"
#include "fast/parallel_items.h"
#include "ref/kernel.h"

namespace tosakit::fast {

ExecutionPlan::~ExecutionPlan() = default;

namespace {

// The finiteness scans run before every oneDNN step over its run-time float operands: vectorized (AVX-512,
// AVX2 or baseline, chosen at run time; -O2 leaves these loops scalar) and split over the threads for large
// tensors, so that they cost a small fraction of the step they guard.

TK_VECTOR_BODY uint32_t specialsF32Body(const uint32_t* p, int64_t n) {
  uint32_t special = 0;
  for (int64_t i = 0; i < n; ++i) special |= uint32_t((p[i] & 0x7f800000u) == 0x7f800000u);
  return special;
}
uint32_t specialsF32(const uint32_t* p, int64_t n) { TK_ISA_DISPATCH(specialsF32Body(p, n)); }
TK_VECTOR_BODY uint32_t specials16Body(const uint16_t* p, int64_t n, uint16_t exp) {
  uint32_t special = 0;
  for (int64_t i = 0; i < n; ++i) special |= uint32_t((p[i] & exp) == exp);
  return special;
}
uint32_t specials16(const uint16_t* p, int64_t n, uint16_t exp) { TK_ISA_DISPATCH(specials16Body(p, n, exp)); }

}  // namespace

// No inf or NaN among the elements of a floating-point tensor (fp32, fp16, bf16; other types: true).
bool allFinite(const void* data, DType t, int64_t n) {
  if (t != DType::FP32 && t != DType::FP16 && t != DType::BF16) return true;
  constexpr int64_t kChunk = 1 << 16;
  const uint32_t special = parallelReduce((n + kChunk - 1) / kChunk, n > 4 * kChunk, uint32_t(0),
                                          [&](int64_t c) {
                                            const int64_t b = c * kChunk, len = std::min(kChunk, n - b);
                                            return t == DType::FP32
                                                ? specialsF32(static_cast<const uint32_t*>(data) + b, len)
                                                : specials16(static_cast<const uint16_t*>(data) + b, len,
                                                             t == DType::FP16 ? 0x7c00 : 0x7f80);
                                          },
                                          [](uint32_t a, uint32_t b) { return a | b; });
  return !special;
}
bool allFinite(const Tensor& t) { return allFinite(t.data(), t.dtype(), t.size()); }

void* ExecutionPlan::dataOf(int s) const {
  const Slot& slot = slots_[s];
  switch (slot.kind) {
    case Slot::Kind::Input: return const_cast<uint8_t*>(inputTensors_[slot.inputIndex]->data());
    case Slot::Kind::Constant:  // a released constant is read by no kernel (packedConstants())
      return slot.constant ? const_cast<uint8_t*>(slot.constant->data()) : nullptr;
    case Slot::Kind::Arena: return arenaBase_ + slot.offset;
    case Slot::Kind::Alias: return dataOf(slot.aliasOf);
  }
  return nullptr;
}

TensorView ExecutionPlan::view(int s) const {
  TensorView v;
  v.dtype = slots_[s].dtype;
  v.shape = slots_[s].shape;
  v.data = dataOf(s);
  return v;
}

namespace {

Tensor tensorFromView(const TensorView& v) {
  Tensor t(v.dtype, v.shape);
  if (t.byteSize()) std::memcpy(t.data(), v.data, t.byteSize());
  return t;
}

}  // namespace

Status ExecutionPlan::runStep(Step& step) {
  if (step.aliasOnly) return Status::ok();
  if (step.kernel) {
    if (step.inViews.empty() && step.outViews.empty()) {
      for (const auto& slots : step.inSlots) {
        std::vector<TensorView> views;
        for (int s : slots) views.push_back(s >= 0 ? view(s) : TensorView());
        step.inViews.push_back(std::move(views));
      }
      for (int s : step.outSlots) step.outViews.push_back(view(s));
    } else {
      for (size_t k = 0; k < step.inSlots.size(); ++k)
        for (size_t j = 0; j < step.inSlots[k].size(); ++j)
          if (int s = step.inSlots[k][j]; s >= 0) step.inViews[k][j].data = dataOf(s);
      for (size_t i = 0; i < step.outSlots.size(); ++i) step.outViews[i].data = dataOf(step.outSlots[i]);
    }
    bool special = false;
    for (int s : step.specialGuard)
      special = special ||
          (!(runAbsBound_[size_t(rootOf(s))] < INFINITY) &&
           !allFinite(dataOf(s), slots_[s].dtype, numElements(slots_[s].shape)));
    if (!special) {
      Status st = step.kernel->run(step.inViews, step.outViews);
      if (!isRerunOnReference(st)) {
        const int first = step.inSlots.empty() || step.inSlots[0].empty() ? -1 : step.inSlots[0][0];
        const double firstBound = first >= 0 ? runAbsBound_[size_t(rootOf(first))] : INFINITY;
        const double bound = st.isOk() ? step.kernel->resultAbsBound(firstBound) : INFINITY;
        for (int o : step.outSlots) runAbsBound_[size_t(rootOf(o))] = bound;
        return st;
      }
    }
  }
  for (int o : step.outSlots) runAbsBound_[size_t(rootOf(o))] = INFINITY;
  return runStepOnReference(step);
}

int ExecutionPlan::rootOf(int s) const {
  while (slots_[size_t(s)].kind == Slot::Kind::Alias) s = slots_[size_t(s)].aliasOf;
  return s;
}

// The step's ops one after the other on their reference kernels (a fallback op, or a fast kernel that met a
// case it leaves to the golden model). Constants and inputs are passed as they are; arena values are copied.
Status ExecutionPlan::runStepOnReference(const Step& step) {
  for (const auto& slots : step.inSlots)  // the reference kernels read the weights as TOSA stores them
    for (int s : slots)
      if (s >= 0) TK_RETURN_IF_ERROR(restoreConstant(s));
  std::vector<std::vector<Tensor>> results(step.ops.size());  // each op's results, read by later ops of the step
  auto internal = [&](const ir::Value* v, size_t k) -> const Tensor* {
    for (size_t m = 0; m < k; ++m)
      for (size_t r = 0; r < step.ops[m]->results.size(); ++r)
        if (step.ops[m]->results[r] == v) return &results[m][r];
    return nullptr;
  };
  std::vector<Tensor> out;
  for (size_t k = 0; k < step.ops.size(); ++k) {
    const ir::Operation& op = *step.ops[k];
    const ref::Kernel* kernel = ref::referenceKernels().find(op.name);
    if (!kernel) return Status::unsupported(op.describe() + ": operator not supported by the reference backend");
    std::vector<Tensor> copies;
    copies.reserve(step.inSlots[k].size());
    std::vector<const Tensor*> in;
    for (size_t j = 0; j < step.inSlots[k].size(); ++j) {
      const int s = step.inSlots[k][j];
      if (s < 0) {
        const Tensor* t = internal(op.operands[j], k);
        if (!t) return Status::internal(op.describe() + ": operand " + std::to_string(j) + " not made in its step");
        in.push_back(t);
        continue;
      }
      const Slot& slot = slots_[s];
      if (slot.kind == Slot::Kind::Constant)
        in.push_back(slot.constant);
      else if (slot.kind == Slot::Kind::Input)
        in.push_back(inputTensors_[slot.inputIndex]);
      else {
        copies.push_back(tensorFromView(view(s)));
        in.push_back(nullptr);
      }
    }
    for (size_t i = 0, c = 0; i < in.size(); ++i)
      if (!in[i]) in[i] = &copies[c++];
    out.clear();
    for (const ir::Value* r : op.results)
      out.emplace_back(r->type.dtype, r->type.isShape() ? Shape{r->type.dims[0]} : r->type.dims);
    ref::ExecState state;
    ref::KernelContext ctx(op, *target_, state);
    TK_RETURN_IF_ERROR((*kernel)(ctx, in, out));
    TK_RETURN_IF_ERROR(ctx.result());
    if (k + 1 < step.ops.size()) results[k] = std::move(out);
  }
  const ir::Operation& op = *step.ops.back();
  for (size_t i = 0; i < out.size(); ++i) {
    TensorView v = view(step.outSlots[i]);
    if (out[i].dtype() != v.dtype || out[i].byteSize() != size_t(slots_[step.outSlots[i]].bytes))
      return Status::internal(op.describe() + ": reference kernel produced " + out[i].summary(0));
    if (out[i].byteSize()) std::memcpy(v.data, out[i].data(), out[i].byteSize());
  }
  return Status::ok();
}

Status ExecutionPlan::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, const OpObserver& observer) {
  if (inputs.size() != inputSlots_.size()) return Status::internal("plan: wrong number of inputs");
  inputTensors_.clear();
  for (const Tensor& t : inputs) inputTensors_.push_back(&t);
  if (arena_.empty() && arenaBytes_ > 0) {
    arena_.resize(size_t(arenaBytes_ + kAlign));
    uintptr_t p = reinterpret_cast<uintptr_t>(arena_.data());
    arenaBase_ = arena_.data() + (kAlign - p % kAlign) % kAlign;
  }
  runAbsBound_.assign(slots_.size(), INFINITY);
  using Clock = std::chrono::steady_clock;
  for (Step& step : steps_) {
    auto t0 = profiling_ ? Clock::now() : Clock::time_point();
    {
      OneThreadScope oneThread(step.singleThread);
      TK_RETURN_IF_ERROR(runStep(step));
    }
    if (profiling_) {
      StepProfile& p = profiles_[step.profileIndex];
      p.totalMs += std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      ++p.runs;
    }
    if (observer) {
      std::vector<Tensor> results;
      for (int s : step.outSlots) results.push_back(tensorFromView(view(s)));
      observer(*step.ops.back(), results);
    }
  }
  outputs.clear();
  for (int s : outputSlots_) outputs.push_back(tensorFromView(view(s)));
  inputTensors_.clear();
  return Status::ok();
}

std::vector<std::pair<std::string, int>> ExecutionPlan::fallbackOps() const {
  std::map<std::string, int> counts;
  for (const StepProfile& p : profiles_)
    if (p.fallback) ++counts[p.opType];
  return {counts.begin(), counts.end()};
}

}  // namespace tosakit::fast

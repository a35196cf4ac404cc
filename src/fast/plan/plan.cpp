// ExecutionPlan compilation (chains, slots, memory plan) and execution (fast kernels, reference fallback).
#include "fast/plan/plan.h"
#include "fast/isa_dispatch.h"

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

struct ExecutionPlan::Slot {
  enum class Kind { Input, Constant, Arena, Alias };
  Kind kind = Kind::Arena;
  DType dtype = DType::FP32;
  Shape shape;
  int64_t bytes = 0;
  int inputIndex = -1;               // Input
  const Tensor* constant = nullptr;  // Constant (null while released)
  // Constant memory (docs/FAST.md, "Memory"): the module attribute that owns a tosa.const's tensor, or the
  // index in foldedConstants_ of a folded one; while compiling, the reads not compiled yet and whether every
  // compiled reader packed it; a kernel that can rebuild it (step, op, operand); whether it is released.
  // A constant reshaped at compile time can also be rebuilt from the folded constant (foldedInto); when the
  // fold is its only reader (onlyFolded), the folded constant stands for it in the plan's byte counts.
  ir::Attribute* attribute = nullptr;
  int foldedIndex = -1;
  int foldedInto = -1, foldedFrom = -1;
  bool onlyFolded = false;
  int readsLeft = 0;
  bool allReadersPacked = true;
  int packedStep = -1, packedOp = -1, packedOperand = -1;
  bool released = false;
  int aliasOf = -1;     // Alias: the slot whose bytes this one reinterprets (a reshape)
  int64_t offset = -1;  // Arena: byte offset
  int firstStep = INT_MAX, lastStep = -1;
};

struct ExecutionPlan::Step {
  // The absorbed held-back producers (OpChain::Producer), then the chain's absorbed ops from chainBegin on: the
  // order they run in on the reference kernels, and the order of the kernel's `in` rows.
  std::vector<const ir::Operation*> ops;
  int chainBegin = 0;
  std::unique_ptr<OpKernel> kernel;       // null: the reference kernel of ops[0] (a single op)
  std::vector<std::vector<int>> inSlots;  // per op, per operand; -1 = the result of an earlier op of the step
  std::vector<int> outSlots;              // results of the last absorbed op
  bool aliasOnly = false;                 // a reshape whose result aliases its input: nothing to run
  // oneDNN's blocked layouts multiply padding lanes by zero, so an inf/NaN input can turn a result the spec
  // defines (FP_SPECIAL) into NaN: run-time float operands are scanned and a non-finite value reruns the step
  // on the reference kernels.
  std::vector<int> specialGuard;
  // The kernel's operand and result views, built on the first run; later runs only refresh their data
  // pointers (inputs change per run), so the hot path allocates nothing.
  std::vector<std::vector<TensorView>> inViews;
  std::vector<TensorView> outViews;
  int profileIndex = -1;
  bool singleThread = false;  // too little work to wake other threads for (isSmallStep)
};

ExecutionPlan::~ExecutionPlan() = default;

namespace {

constexpr int64_t kAlign = 64;

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

// Steps with less work than this run on the calling thread alone: every OpenMP region wakes the pool's threads
// and waits for all of them at its end. That costs microseconds on an idle machine and up to a scheduler time
// slice on a loaded one (a woken thread waits for a core), while the region saves only the split of a few
// hundred microseconds of work. Work: multiply-accumulates of convolutions/matmuls, elements otherwise. (2e6
// MACs kept 14 of mobilenet_v2's 17 depthwise layers on one thread; at 2e5, idle machine, spinning waits,
// --threads 2: mobilenet_v2 2.21 -> 2.02 ms, ppocr_cls 0.386 -> 0.351 ms.)
constexpr double kSmallMacs = 2e5, kSmallElements = 65536;

bool isSmallStep(const ir::Operation& op) {
  if (op.results.size() != 1 || !op.results[0]->type.isStatic() || op.operands.empty()) return false;
  const double out = double(numElements(op.results[0]->type.dims));
  auto dims = [&](size_t j) -> const Shape& { return op.operands[j]->type.dims; };
  double macs = -1;
  if ((op.name == "tosa.conv2d" || op.name == "tosa.depthwise_conv2d") && op.operands.size() > 1 &&
      dims(1).size() == 4) {
    const Shape& w = dims(1);  // conv2d [OC, KH, KW, IC]; depthwise [KH, KW, C, M]
    macs = op.name == "tosa.conv2d" ? out * double(w[1] * w[2] * w[3]) : out * double(w[0] * w[1]);
  } else if (op.name == "tosa.transpose_conv2d" && op.operands.size() > 1 && dims(1).size() == 4) {
    const Shape& w = dims(1);  // [OC, KH, KW, IC]
    macs = double(numElements(dims(0))) * double(w[0] * w[1] * w[2]);
  } else if (op.name == "tosa.matmul" && dims(0).size() == 3) {
    macs = out * double(dims(0)[2]);
  }
  return macs >= 0 ? macs < kSmallMacs : out < kSmallElements;
}

// Limits the calling thread's OpenMP regions (and oneDNN's) to one thread while alive.
class OneThreadScope {
 public:
  explicit OneThreadScope(bool on) : saved_(on ? omp_get_max_threads() : 0) {
    if (saved_ > 1) omp_set_num_threads(1);
  }
  ~OneThreadScope() {
    if (saved_ > 1) omp_set_num_threads(saved_);
  }
  OneThreadScope(const OneThreadScope&) = delete;
  OneThreadScope& operator=(const OneThreadScope&) = delete;

 private:
  int saved_;
};

bool isConstantOp(const ir::Operation& op) { return op.name == "tosa.const" || op.name == "tosa.const_shape"; }

// Ops that make the whole function run on the reference interpreter instead (regions, state, user hooks).
bool needsInterpreter(const ir::Operation& op) {
  return !op.regions.empty() || op.name == "tosa.custom" || op.name.rfind("tosa.variable", 0) == 0;
}

std::string opTypeName(const std::vector<const ir::Operation*>& ops) {
  std::string s;
  for (const ir::Operation* op : ops) s += (s.empty() ? "" : "+") + op->name;
  return s;
}

}  // namespace

Result<std::unique_ptr<ExecutionPlan>> ExecutionPlan::compile(const ir::Function& fn, const ir::TargetEnv& target,
                                                              const PlanOptions& opts) {
  std::unique_ptr<ExecutionPlan> plan(new ExecutionPlan());
  TK_RETURN_IF_ERROR(plan->compileFunction(fn, target, opts));
  TK_RETURN_IF_ERROR(plan->planMemory());
  return plan;
}

bool functionNeedsInterpreter(const ir::Function& fn) {
  for (const ir::Value* v : fn.inputs())
    if (!v->type.isStatic()) return true;
  for (const auto& op : fn.body.ops) {
    if (needsInterpreter(*op)) return true;
    for (const ir::Value* r : op->results)
      if (!r->type.isStatic()) return true;
  }
  return false;
}

Status ExecutionPlan::compileFunction(const ir::Function& fn, const ir::TargetEnv& target, const PlanOptions& opts) {
  fn_ = &fn;
  target_ = &target;
  releasePacked_ = opts.releasePackedConstants;
  std::map<const ir::Value*, int> slotOf;
  std::map<const ir::Value*, int> uses;
  const ir::Operation* ret = fn.body.terminator();
  for (const auto& op : fn.body.ops)
    for (const ir::Value* v : op->operands) ++uses[v];

  auto newSlot = [&](const ir::Value* v) {
    Slot s;
    s.dtype = v->type.dtype;
    s.shape = v->type.isShape() ? Shape{v->type.dims[0]} : v->type.dims;
    auto bytes = checkedByteSize(s.dtype, s.shape);
    s.bytes = bytes ? *bytes : -1;  // checked against the budget below, before anything is allocated
    slots_.push_back(std::move(s));
    slotOf[v] = int(slots_.size()) - 1;
    return int(slots_.size()) - 1;
  };
  for (size_t i = 0; i < fn.inputs().size(); ++i) {
    int s = newSlot(fn.inputs()[i]);
    slots_[s].kind = Slot::Kind::Input;
    slots_[s].inputIndex = int(i);
    inputSlots_.push_back(s);
  }

  // The non-constant ops in order; constants become read-only slots.
  std::vector<const ir::Operation*> ops;
  for (const auto& op : fn.body.ops) {
    if (op.get() == ret) continue;
    if (isConstantOp(*op)) {
      const ir::Attribute* values = op->attr("values");
      if (!values || !values->tensor) return Status::invalid(op->describe() + ": constant without values");
      int s = newSlot(op->results[0]);
      slots_[s].kind = Slot::Kind::Constant;
      slots_[s].constant = values->tensor.get();
      slots_[s].attribute = &op->attrs.find("values")->second;
      slots_[s].readsLeft = uses[op->results[0]];
      constantBytes_ += slots_[s].bytes;
      continue;
    }
    // A reshape of a constant is a constant (e.g. an imported Gemm's weights, [K, N] -> [1, K, N]): folded at
    // compile time so that the consumer's factory sees constant weights (packed once, no run-time scan).
    // (Not in the unfused plan: there every op's result is observed.)
    if (opts.fuse && op->name == "tosa.reshape" && op->results.size() == 1 && op->results[0]->type.isStatic() &&
        !op->results[0]->type.isShape() && !op->operands.empty()) {
      auto it = slotOf.find(op->operands[0]);
      const ir::Value* r = op->results[0];
      if (it != slotOf.end() && slots_[it->second].kind == Slot::Kind::Constant &&
          slots_[it->second].dtype == r->type.dtype &&
          numElements(slots_[it->second].shape) == numElements(r->type.dims)) {
        // The copy is made when its first reader is compiled (materializeFold), not here: with every other
        // layer packed and released by then, it does not add to the peak while compiling.
        const int from = it->second;
        int s = newSlot(r);
        slots_[s].kind = Slot::Kind::Constant;
        slots_[s].foldedIndex = int(foldedConstants_.size());
        slots_[s].readsLeft = uses[r];
        slots_[s].foldedFrom = from;
        foldedConstants_.push_back(nullptr);
        // The fold is a read of the original that the folded constant can give back (one fold per original).
        // Folds come before any step is compiled: a fold that is the last read is the only one.
        Slot& src = slots_[from];
        if (src.foldedInto >= 0)
          src.allReadersPacked = false;
        else
          src.foldedInto = s;
        src.onlyFolded = --src.readsLeft == 0 && src.packedStep < 0 && src.allReadersPacked;
        constantBytes_ += slots_[s].bytes;
        continue;
      }
    }
    ops.push_back(op.get());
  }

  const FastKernelRegistry& registry = fastKernels();
  auto constantsOf = [&](const ir::Operation* op) {
    std::vector<const Tensor*> consts;
    for (const ir::Value* v : op->operands) {
      auto it = slotOf.find(v);
      consts.push_back(it != slotOf.end() && slots_[it->second].kind == Slot::Kind::Constant
                           ? materializeFold(it->second)
                           : nullptr);
    }
    return consts;
  };
  // Held back (fused plan only): an op some kernel may absorb as a producer (FastKernelRegistry::allowProducer)
  // whose only result has one user, a later op that is not the next one (the next one would take it into a
  // linear chain). It is compiled with its user's step: absorbed by that step's kernel, or as its own step just
  // before it (OpChain::Producer). Its input then lives until that step (the memory plan reads the steps).
  std::map<const ir::Value*, size_t> userIndex;  // a value's last user among ops
  for (size_t i = 0; i < ops.size(); ++i)
    for (const ir::Value* v : ops[i]->operands) userIndex[v] = i;
  std::map<const ir::Value*, const ir::Operation*> heldBack;  // result -> its producer, not compiled yet
  auto holdBack = [&](size_t i) {
    const ir::Operation* op = ops[i];
    if (!opts.fuse || !registry.producerAllowed(op->name) || op->results.size() != 1) return false;
    const ir::Value* r = op->results[0];
    auto u = userIndex.find(r);
    return uses[r] == 1 && u != userIndex.end() && u->second > i + 1;
  };

  // Compiles a chain into one step (the first ops of the chain its kernel absorbs, with the held-back producers
  // it absorbs); returns how many ops of the chain the step computes.
  std::function<Result<int>(OpChain&)> compileStep = [&](OpChain& chain) -> Result<int> {
    chain.producers.clear();
    for (const ir::Operation* op : chain.ops) {
      std::vector<OpChain::Producer> row(op->operands.size());
      for (size_t j = 0; j < op->operands.size(); ++j)
        if (auto it = heldBack.find(op->operands[j]); it != heldBack.end())
          row[j] = {it->second, constantsOf(it->second)};
      chain.producers.push_back(std::move(row));
    }
    Step step;
    step.singleThread = isSmallStep(*chain.ops[0]);
    std::vector<const ir::Operation*> chainOps{chain.ops[0]};
    std::vector<std::pair<int, int>> absorbed;  // held-back producers the kernel computes
    if (const auto* factories = registry.find(chain.ops[0]->name)) {
      for (const KernelFactory& f : *factories) {
        // A small step's oneDNN primitive is created for one thread too (some fix their split at creation).
        OneThreadScope oneThread(step.singleThread);
        Result<CompiledKernel> ck = f(chain);
        if (!ck) return ck.status();
        if (ck->kernel) {
          step.kernel = std::move(ck->kernel);
          chainOps.assign(chain.ops.begin(),
                          chain.ops.begin() + std::clamp<int>(ck->opsAbsorbed, 1, int(chain.ops.size())));
          absorbed = ck->producers;
          break;
        }
      }
    }
    for (auto [k, j] : absorbed)
      if (k < 0 || size_t(k) >= chainOps.size() || j < 0 || size_t(j) >= chain.producers[k].size() ||
          !chain.producers[k][j].op || std::count(absorbed.begin(), absorbed.end(), std::make_pair(k, j)) != 1)
        return Status::internal(chain.ops[0]->describe() + ": kernel " + step.kernel->implName() +
                                " claims a producer it was not offered");
    if (step.kernel && step.kernel->implName().rfind("onednn:", 0) == 0) {
      for (size_t k = 0; k < chainOps.size() && step.kernel; ++k)
        for (size_t j = 0; j < chainOps[k]->operands.size(); ++j) {
          const ir::Value* v = chainOps[k]->operands[j];
          if (!isFloat(v->type.dtype)) continue;
          const Tensor* c = chain.constants[k][j];
          if (c && !allFinite(*c)) step.kernel.reset();  // special weights: the reference kernel always
        }
      if (!step.kernel) chainOps = {chain.ops[0]}, absorbed.clear();
    }
    // An i8 table next in the chain (the only user of the step's result) is looked up in place by the same step.
    if (step.kernel && chainOps.size() < chain.ops.size()) {
      const size_t t = chainOps.size();
      if (std::unique_ptr<OpKernel> both = withTrailingTable(step.kernel, *chain.ops[t], chain.constants[t])) {
        step.kernel = std::move(both);
        chainOps.push_back(chain.ops[t]);
      }
    }

    for (auto [k, j] : absorbed) {
      step.ops.push_back(chain.producers[k][j].op);
      heldBack.erase(chainOps[k]->operands[j]);
    }
    step.chainBegin = int(step.ops.size());
    step.ops.insert(step.ops.end(), chainOps.begin(), chainOps.end());
    // An operand made by another op of the step is internal to it (-1); one whose producer is still held back
    // (not absorbed by this kernel) gets that producer's step first.
    auto madeInStep = [&](const ir::Value* v, size_t k) {
      for (size_t m = 0; m < k; ++m)
        if (std::find(step.ops[m]->results.begin(), step.ops[m]->results.end(), v) != step.ops[m]->results.end())
          return true;
      return false;
    };
    for (size_t k = 0; k < step.ops.size(); ++k) {
      std::vector<int> in;
      for (const ir::Value* v : step.ops[k]->operands) {
        if (madeInStep(v, k)) {
          in.push_back(-1);
          continue;
        }
        if (auto held = heldBack.find(v); held != heldBack.end()) {
          OpChain alone;
          alone.target = &target;
          alone.ops = {held->second};
          alone.constants = {constantsOf(held->second)};
          heldBack.erase(held);
          Result<int> done = compileStep(alone);
          if (!done) return done.status();
        }
        auto it = slotOf.find(v);
        if (it == slotOf.end()) return Status::internal(step.ops[k]->describe() + ": operand used before definition");
        in.push_back(it->second);
      }
      step.inSlots.push_back(std::move(in));
    }
    const ir::Operation* last = step.ops.back();
    for (const ir::Value* r : last->results) {
      std::string what = last->describe() + " result " + std::to_string(r->index) + " " + r->type.toString();
      TK_RETURN_IF_ERROR(
          checkAllocation(r->type.dtype, r->type.isShape() ? Shape{r->type.dims[0]} : r->type.dims, what));
      step.outSlots.push_back(newSlot(r));
    }
    if (step.kernel && step.kernel->implName().rfind("onednn:", 0) == 0)
      for (size_t k = 0; k < step.ops.size(); ++k)
        for (size_t j = 0; j < step.inSlots[k].size(); ++j)
          if (int s = step.inSlots[k][j]; s >= 0 && isFloat(slots_[s].dtype) &&
              slots_[s].kind != Slot::Kind::Constant && !step.kernel->rejectsNonFinite(int(k), int(j)))
            step.specialGuard.push_back(s);
    // A reshape only renames bytes: its result aliases its input (no copy, no extra memory).
    if (!step.kernel && last->name == "tosa.reshape" && step.outSlots.size() == 1) {
      int src = step.inSlots[0][0];
      Slot& out = slots_[step.outSlots[0]];
      if (slots_[src].dtype == out.dtype && slots_[src].bytes == out.bytes) {
        out.kind = Slot::Kind::Alias;
        out.aliasOf = src;
        step.aliasOnly = true;
      }
    }
    StepProfile p;
    p.opType = opTypeName(step.ops);
    p.location = step.ops[size_t(step.chainBegin)]->loc.name;
    p.impl = step.aliasOnly ? "alias" : step.kernel ? step.kernel->implName() : "ref (fallback)";
    p.flops = step.kernel ? step.kernel->flops() : 0;
    p.fallback = !step.kernel && !step.aliasOnly;
    profiles_.push_back(p);
    step.profileIndex = int(profiles_.size()) - 1;
    steps_.push_back(std::move(step));
    noteConstantReads(steps_.back(), int(steps_.size()) - 1);
    return int(chainOps.size());
  };

  std::vector<bool> scheduled(ops.size(), false);  // compiled into a step, or held back
  for (size_t i = 0; i < ops.size(); ++i) {
    if (scheduled[i]) continue;
    if (holdBack(i)) {
      heldBack[ops[i]->results[0]] = ops[i];
      scheduled[i] = true;
      continue;
    }
    // The longest chain starting at ops[i]: each next op is the only user of the previous op's only result. An
    // op in between that is held back anyway (holdBack) does not end it: it is held back now, and offered to
    // the chain's kernel as a producer of its user. E.g. the skip operand's rescale between a 1x1 convolution's
    // rescale and the residual add's rescale of the convolution's result, which the convolution's kernel may
    // compute in its epilogue (kernels/int8/pointwise_vnni.cpp).
    OpChain chain;
    chain.target = &target;
    chain.ops.push_back(ops[i]);
    std::vector<size_t> chainIndex{i};
    for (size_t j = i + 1; opts.fuse && j < ops.size(); ++j) {
      if (scheduled[j]) continue;
      const ir::Operation* prev = chain.ops.back();
      if (prev->results.size() != 1 || uses[prev->results[0]] != 1) break;
      bool feeds = false;
      for (const ir::Value* v : ops[j]->operands) feeds |= v == prev->results[0];
      if (!feeds && holdBack(j)) {
        heldBack[ops[j]->results[0]] = ops[j];
        scheduled[j] = true;
        continue;
      }
      if (!feeds) break;
      chain.ops.push_back(ops[j]);
      chainIndex.push_back(j);
    }
    for (const ir::Operation* op : chain.ops) chain.constants.push_back(constantsOf(op));
    Result<int> done = compileStep(chain);
    if (!done) return done.status();
    for (int k = 0; k < *done; ++k) scheduled[chainIndex[size_t(k)]] = true;
  }
  if (!heldBack.empty()) return Status::internal(heldBack.begin()->second->describe() + ": held back and never run");
  for (size_t s = 0; s < slots_.size(); ++s) {
    materializeFold(int(s));  // folds no step reads (outputs)
    // A released original that only its fold read: the folded constant stands for it (counted once).
    if (slots_[s].onlyFolded && slots_[s].released) constantBytes_ -= slots_[s].bytes;
  }
  for (const ir::Value* v : ret->operands) {
    auto it = slotOf.find(v);
    if (it == slotOf.end()) return Status::internal("function result used before definition");
    outputSlots_.push_back(it->second);
  }
  return Status::ok();
}

// The value of a constant slot; a folded reshape of a constant is copied on first use.
const Tensor* ExecutionPlan::materializeFold(int s) {
  Slot& c = slots_[s];
  if (c.constant || c.released || c.foldedFrom < 0) return c.constant;
  auto t = std::make_unique<Tensor>(*materializeFold(c.foldedFrom));  // a reshape of a reshape: its source first
  t->reshape(c.shape);
  c.constant = t.get();
  foldedConstants_[size_t(c.foldedIndex)] = std::move(t);
  return c.constant;
}

// Counts the step's reads of constants; a constant whose reads are all compiled, each by a kernel that packed
// it, is released right away, so that compiling holds at most one layer's weights twice (the peak RSS while
// compiling stays near the packed weights, as while running).
void ExecutionPlan::noteConstantReads(const Step& step, int stepIndex) {
  const std::vector<std::pair<int, int>> packed =
      step.kernel ? step.kernel->packedConstants() : std::vector<std::pair<int, int>>();
  std::vector<int> done;
  for (size_t k = 0; k < step.inSlots.size(); ++k)
    for (size_t j = 0; j < step.inSlots[k].size(); ++j) {
      const int s = step.inSlots[k][j];
      if (s < 0 || slots_[s].kind != Slot::Kind::Constant) continue;
      Slot& c = slots_[s];
      --c.readsLeft;
      if (std::find(packed.begin(), packed.end(), std::make_pair(int(k), int(j))) == packed.end()) {
        c.allReadersPacked = false;
      } else if (c.packedStep < 0) {
        c.packedStep = stepIndex, c.packedOp = int(k), c.packedOperand = int(j);
      }
      if (c.readsLeft == 0) done.push_back(s);
    }
  for (int s : done) releaseConstant(s);
}

// Frees the module's copy of a constant (or the plan's folded one) when nothing but the plan can read it. Its
// kernel gives it back when needed (unpackConstant checks what it rebuilds: see onednn/unpack.h); checking
// here would hold a third copy of the layer while compiling, the peak of the whole run on resnet18.
bool ExecutionPlan::releaseConstant(int s) {
  Slot& c = slots_[s];
  if (!releasePacked_ || c.released || !c.allReadersPacked || c.readsLeft != 0 || !c.constant) return false;
  const bool viaFold = c.packedStep < 0 && c.foldedInto >= 0 && slots_[size_t(c.foldedInto)].released;
  if (c.packedStep < 0 && !viaFold) return false;
  if (c.attribute && c.attribute->tensor.use_count() != 1) return false;  // shared with another module
  if (!c.attribute && c.foldedIndex < 0) return false;
  if (c.attribute)
    c.attribute->tensor.reset();
  else
    foldedConstants_[size_t(c.foldedIndex)].reset();
  c.constant = nullptr;
  c.released = true;
  // The loader's tensors lie in the heap among live blocks (glibc raised its mmap threshold while parsing):
  // freeing one does not return its pages until the heap is trimmed, and the next layer's packed copy rarely
  // fits the hole. Trimmed now, compiling never holds much more than the packed weights.
  returnFreedHeapToOs();
  if (c.foldedFrom >= 0) releaseConstant(c.foldedFrom);  // now rebuildable from this one
  return true;
}

// A released constant's tensor: from the kernel that packed it, or its folded reshape's (reshaped back).
Result<Tensor> ExecutionPlan::rebuildConstant(int s) {
  Slot& c = slots_[s];
  if (c.packedStep < 0) {
    TK_RETURN_IF_ERROR(restoreConstant(c.foldedInto));
    Tensor t = *slots_[size_t(c.foldedInto)].constant;
    t.reshape(c.shape);
    return t;
  }
  const Step& step = steps_[size_t(c.packedStep)];
  Result<Tensor> t = step.kernel->unpackConstant(c.packedOp, c.packedOperand);
  if (t && (t->dtype() != c.dtype || t->shape() != c.shape))
    return Status::internal(step.ops[0]->describe() + ": packed constant rebuilt as " + t->summary(0));
  return t;
}

Status ExecutionPlan::restoreConstant(int s) {
  Slot& c = slots_[s];
  if (!c.released) return Status::ok();
  Result<Tensor> t = rebuildConstant(s);
  if (!t) return t.status();
  if (c.attribute) {
    c.attribute->tensor = std::make_shared<const Tensor>(std::move(*t));
    c.constant = c.attribute->tensor.get();
  } else {
    foldedConstants_[size_t(c.foldedIndex)] = std::make_unique<Tensor>(std::move(*t));
    c.constant = foldedConstants_[size_t(c.foldedIndex)].get();
  }
  c.released = false;
  return Status::ok();
}

Status ExecutionPlan::restoreConstants() {
  for (size_t s = 0; s < slots_.size(); ++s) TK_RETURN_IF_ERROR(restoreConstant(int(s)));
  return Status::ok();
}

int64_t ExecutionPlan::releasedConstantBytes() const {
  int64_t n = 0;
  for (const Slot& s : slots_)
    if (s.released && !s.onlyFolded) n += s.bytes;  // the folded constant counts for its original
  return n;
}

// Lifetimes on root slots (aliases extend their root's), then a greedy first-fit placement of the largest
// buffers first: a value's bytes are reused once every reader of it has run.
Status ExecutionPlan::planMemory() {
  auto touch = [&](int s, int step) {
    Slot& r = slots_[size_t(rootOf(s))];
    r.firstStep = std::min(r.firstStep, step);
    r.lastStep = std::max(r.lastStep, step);
  };
  for (size_t i = 0; i < steps_.size(); ++i) {
    for (const auto& in : steps_[i].inSlots)
      for (int s : in)
        if (s >= 0) touch(s, int(i));
    for (int s : steps_[i].outSlots) touch(s, int(i));
  }
  for (int s : outputSlots_) touch(s, int(steps_.size()));

  std::vector<int> order;
  for (size_t s = 0; s < slots_.size(); ++s)
    if (slots_[s].kind == Slot::Kind::Arena && slots_[s].lastStep >= 0) order.push_back(int(s));
  std::sort(order.begin(), order.end(), [&](int a, int b) { return slots_[a].bytes > slots_[b].bytes; });
  std::vector<int> placed;
  int64_t total = 0;
  for (int s : order) {
    Slot& a = slots_[s];
    std::vector<std::pair<int64_t, int64_t>> busy;  // [begin, end) of overlapping-lifetime buffers
    for (int p : placed) {
      const Slot& b = slots_[p];
      if (a.firstStep <= b.lastStep && b.firstStep <= a.lastStep) busy.push_back({b.offset, b.offset + b.bytes});
    }
    std::sort(busy.begin(), busy.end());
    int64_t offset = 0;
    for (auto [b, e] : busy) {
      if (offset + a.bytes <= b) break;
      offset = std::max(offset, (e + kAlign - 1) / kAlign * kAlign);
    }
    a.offset = offset;
    total = std::max(total, offset + a.bytes);
    placed.push_back(s);
  }
  arenaBytes_ = total;
  return checkAllocationBytes(total, "the fast backend's activation arena");
}

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

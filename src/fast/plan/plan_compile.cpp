// ExecutionPlan compilation: slots for inputs and constants (reshapes of constants folded), op chains grouped
// and compiled into steps by the kernel factories (fusion, held-back producers), reshapes aliased.
#include <algorithm>

#include "core/size_budget.h"
#include "fast/kernel_factories.h"
#include "fast/plan/plan_internal.h"

namespace tosakit::fast {
namespace {

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
  CompileState st{fn, target, opts, fastKernels(), {}, {}, {}, {}, {}};
  for (const auto& op : fn.body.ops)
    for (const ir::Value* v : op->operands) ++st.uses[v];
  for (size_t i = 0; i < fn.inputs().size(); ++i) {
    int s = newSlot(st, fn.inputs()[i]);
    slots_[s].kind = Slot::Kind::Input;
    slots_[s].inputIndex = int(i);
    inputSlots_.push_back(s);
  }
  TK_RETURN_IF_ERROR(collectOps(st));
  for (size_t i = 0; i < st.ops.size(); ++i)
    for (const ir::Value* v : st.ops[i]->operands) st.userIndex[v] = i;
  TK_RETURN_IF_ERROR(compileChains(st));
  return finishFunction(st);
}

int ExecutionPlan::newSlot(CompileState& st, const ir::Value* v) {
  Slot s;
  s.dtype = v->type.dtype;
  s.shape = v->type.isShape() ? Shape{v->type.dims[0]} : v->type.dims;
  auto bytes = checkedByteSize(s.dtype, s.shape);
  s.bytes = bytes ? *bytes : -1;  // checked against the budget (planMemory), before anything is allocated
  slots_.push_back(std::move(s));
  st.slotOf[v] = int(slots_.size()) - 1;
  return int(slots_.size()) - 1;
}

// The non-constant ops in order into st.ops; constants become read-only slots.
Status ExecutionPlan::collectOps(CompileState& st) {
  const ir::Operation* ret = st.fn.body.terminator();
  for (const auto& op : st.fn.body.ops) {
    if (op.get() == ret) continue;
    if (isConstantOp(*op)) {
      const ir::Attribute* values = op->attr("values");
      if (!values || !values->tensor) return Status::invalid(op->describe() + ": constant without values");
      int s = newSlot(st, op->results[0]);
      slots_[s].kind = Slot::Kind::Constant;
      slots_[s].constant = values->tensor.get();
      slots_[s].attribute = &op->attrs.find("values")->second;
      slots_[s].readsLeft = st.uses[op->results[0]];
      constantBytes_ += slots_[s].bytes;
      continue;
    }
    if (st.opts.fuse && foldConstantReshape(st, *op)) continue;
    st.ops.push_back(op.get());
  }
  return Status::ok();
}

// A reshape of a constant is a constant (e.g. an imported Gemm's weights, [K, N] -> [1, K, N]): folded at
// compile time so that the consumer's factory sees constant weights (packed once, no run-time scan).
// (Not in the unfused plan: there every op's result is observed.) False: op is not such a reshape.
bool ExecutionPlan::foldConstantReshape(CompileState& st, const ir::Operation& op) {
  if (op.name != "tosa.reshape" || op.results.size() != 1 || !op.results[0]->type.isStatic() ||
      op.results[0]->type.isShape() || op.operands.empty())
    return false;
  auto it = st.slotOf.find(op.operands[0]);
  const ir::Value* r = op.results[0];
  if (it == st.slotOf.end() || slots_[it->second].kind != Slot::Kind::Constant ||
      slots_[it->second].dtype != r->type.dtype || numElements(slots_[it->second].shape) != numElements(r->type.dims))
    return false;
  // The copy is made when its first reader is compiled (materializeFold), not here: with every other
  // layer packed and released by then, it does not add to the peak while compiling.
  const int from = it->second;
  int s = newSlot(st, r);
  slots_[s].kind = Slot::Kind::Constant;
  slots_[s].foldedIndex = int(foldedConstants_.size());
  slots_[s].readsLeft = st.uses[r];
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
  return true;
}

std::vector<const Tensor*> ExecutionPlan::constantsOf(CompileState& st, const ir::Operation* op) {
  std::vector<const Tensor*> consts;
  for (const ir::Value* v : op->operands) {
    auto it = st.slotOf.find(v);
    consts.push_back(it != st.slotOf.end() && slots_[it->second].kind == Slot::Kind::Constant
                         ? materializeFold(it->second)
                         : nullptr);
  }
  return consts;
}

// Held back (fused plan only): an op some kernel may absorb as a producer (FastKernelRegistry::allowProducer)
// whose only result has one user, a later op that is not the next one (the next one would take it into a
// linear chain). It is compiled with its user's step: absorbed by that step's kernel, or as its own step just
// before it (OpChain::Producer). Its input then lives until that step (the memory plan reads the steps).
bool ExecutionPlan::holdBack(const CompileState& st, size_t i) const {
  const ir::Operation* op = st.ops[i];
  if (!st.opts.fuse || !st.registry.producerAllowed(op->name) || op->results.size() != 1) return false;
  const ir::Value* r = op->results[0];
  auto u = st.userIndex.find(r);
  auto n = st.uses.find(r);
  return n != st.uses.end() && n->second == 1 && u != st.userIndex.end() && u->second > i + 1;
}

// The chains in op order, each compiled into one step (or more, when its kernel absorbs only a prefix).
Status ExecutionPlan::compileChains(CompileState& st) {
  const std::vector<const ir::Operation*>& ops = st.ops;
  std::vector<bool> scheduled(ops.size(), false);  // compiled into a step, or held back
  for (size_t i = 0; i < ops.size(); ++i) {
    if (scheduled[i]) continue;
    if (holdBack(st, i)) {
      st.heldBack[ops[i]->results[0]] = ops[i];
      scheduled[i] = true;
      continue;
    }
    if (st.opts.fuse) {
      std::vector<bool> closed;
      const std::vector<size_t> region = collectRegion(st, i, scheduled, closed);
      if (!region.empty()) {
        OpChain r;
        r.target = &st.target;
        for (size_t j : region) r.ops.push_back(ops[j]);
        for (const ir::Operation* op : r.ops) r.constants.push_back(constantsOf(st, op));
        Result<int> done = compileStep(st, r, &closed);
        if (!done) return done.status();
        if (*done > 0) {
          for (int k = 0; k < *done; ++k) scheduled[region[size_t(k)]] = true;
          continue;
        }
      }
    }
    // The longest chain starting at ops[i]: each next op is the only user of the previous op's only result. An
    // op in between that is held back anyway (holdBack) does not end it: it is held back now, and offered to
    // the chain's kernel as a producer of its user. E.g. the skip operand's rescale between a 1x1 convolution's
    // rescale and the residual add's rescale of the convolution's result, which the convolution's kernel may
    // compute in its epilogue (kernels/int8/pointwise_vnni.cpp).
    OpChain chain;
    chain.target = &st.target;
    chain.ops.push_back(ops[i]);
    std::vector<size_t> chainIndex{i};
    for (size_t j = i + 1; st.opts.fuse && j < ops.size(); ++j) {
      if (scheduled[j]) continue;
      const ir::Operation* prev = chain.ops.back();
      if (prev->results.size() != 1 || st.uses[prev->results[0]] != 1) break;
      bool feeds = false;
      for (const ir::Value* v : ops[j]->operands) feeds |= v == prev->results[0];
      if (!feeds && holdBack(st, j)) {
        st.heldBack[ops[j]->results[0]] = ops[j];
        scheduled[j] = true;
        continue;
      }
      if (!feeds) break;
      chain.ops.push_back(ops[j]);
      chainIndex.push_back(j);
    }
    for (const ir::Operation* op : chain.ops) chain.constants.push_back(constantsOf(st, op));
    Result<int> done = compileStep(st, chain);
    if (!done) return done.status();
    for (int k = 0; k < *done; ++k) scheduled[chainIndex[size_t(k)]] = true;
  }
  if (!st.heldBack.empty())
    return Status::internal(st.heldBack.begin()->second->describe() + ": held back and never run");
  return Status::ok();
}

// A region (fused plan only; offered to the kRegionKernels factories): ops[i] and the ops right after it, each
// reading a value the region made. A kernel may take a prefix that is closed — every value of it is read only
// inside it, but the last op's result — and branched — some value has several readers, where a linear chain
// stops. E.g. the import's QuantizeLinear of a float graph input (docs/ONNX.md): a clamp, a rounding by a magic
// constant and a three-part residual read the clamped value twice and the rounded one four times, then cast,
// rescale and transpose: 15 ops, 7 steps as chains. Returns the ops (up to kMaxOps), closed[k]: whether the
// prefix of k ops may be taken (at least three); empty: no such prefix.
std::vector<size_t> ExecutionPlan::collectRegion(const CompileState& st, size_t i, const std::vector<bool>& scheduled,
                                                 std::vector<bool>& closed) const {
  constexpr size_t kMaxOps = 32;
  if (!st.registry.find(kRegionKernels)) return {};
  std::map<const ir::Value*, int> readsInside;  // region values -> their reads by region ops
  std::vector<size_t> ops;
  closed.assign(1, false);
  bool branched = false, any = false;
  for (size_t j = i; j < st.ops.size() && ops.size() < kMaxOps && !scheduled[j]; ++j) {
    const ir::Operation* op = st.ops[j];
    if (op->results.size() != 1) break;
    bool reads = false;
    for (const ir::Value* v : op->operands)
      if (auto it = readsInside.find(v); it != readsInside.end()) ++it->second, reads = true;
    if (j > i && !reads) break;
    readsInside[op->results[0]] = 0;
    ops.push_back(j);
    bool inside = true;
    for (const auto& [v, n] : readsInside) {
      if (v == op->results[0]) continue;
      auto u = st.uses.find(v);
      const int uses = u == st.uses.end() ? 0 : u->second;
      inside = inside && n == uses;
      branched = branched || uses > 1;
    }
    closed.push_back(inside && branched && ops.size() >= 3);
    any = any || closed.back();
  }
  if (!any) ops.clear();
  return ops;
}

// Compiles a chain into one step (the first ops of the chain its kernel absorbs, with the held-back producers
// it absorbs); returns how many ops of the chain the step computes.
// A region (collectRegion) is compiled only by a kernel that takes a closed prefix of it: 0 otherwise, and no step.
Result<int> ExecutionPlan::compileStep(CompileState& st, OpChain& chain, const std::vector<bool>* region) {
  chain.producers.clear();
  for (const ir::Operation* op : chain.ops) {
    std::vector<OpChain::Producer> row(op->operands.size());
    for (size_t j = 0; j < op->operands.size(); ++j)
      if (auto it = st.heldBack.find(op->operands[j]); it != st.heldBack.end())
        row[j] = {it->second, constantsOf(st, it->second)};
    chain.producers.push_back(std::move(row));
  }
  Step step;
  step.singleThread = isSmallStep(*chain.ops[0]);
  std::vector<const ir::Operation*> chainOps{chain.ops[0]};
  std::vector<std::pair<int, int>> absorbed;  // held-back producers the kernel computes
  TK_RETURN_IF_ERROR(chooseKernel(st, chain, step, chainOps, absorbed, region));
  if (region && !step.kernel) return 0;
  for (auto [k, j] : absorbed) {
    step.ops.push_back(chain.producers[k][j].op);
    st.heldBack.erase(chainOps[k]->operands[j]);
  }
  step.chainBegin = int(step.ops.size());
  step.ops.insert(step.ops.end(), chainOps.begin(), chainOps.end());
  TK_RETURN_IF_ERROR(wireOperands(st, step));
  const ir::Operation* last = step.ops.back();
  for (const ir::Value* r : last->results) {
    std::string what = last->describe() + " result " + std::to_string(r->index) + " " + r->type.toString();
    TK_RETURN_IF_ERROR(checkAllocation(r->type.dtype, r->type.isShape() ? Shape{r->type.dims[0]} : r->type.dims, what));
    step.outSlots.push_back(newSlot(st, r));
  }
  guardSpecials(step);
  aliasReshape(step);
  recordProfile(step);
  steps_.push_back(std::move(step));
  noteConstantReads(steps_.back(), int(steps_.size()) - 1);
  return int(chainOps.size());
}

// The first factory of the chain's head op that compiles it; chainOps: the ops of the chain its kernel computes
// (at least the head), absorbed: the held-back producers it computes. No kernel: the head alone, on its reference
// kernel.
Status ExecutionPlan::chooseKernel(CompileState& st, OpChain& chain, Step& step,
                                   std::vector<const ir::Operation*>& chainOps,
                                   std::vector<std::pair<int, int>>& absorbed, const std::vector<bool>* region) {
  if (const auto* factories = st.registry.find(region ? std::string(kRegionKernels) : chain.ops[0]->name)) {
    for (const KernelFactory& f : *factories) {
      // A small step's oneDNN primitive is created for one thread too (some fix their split at creation).
      OneThreadScope oneThread(step.singleThread);
      Result<CompiledKernel> ck = f(chain);
      if (!ck) return ck.status();
      if (ck->kernel && region &&
          (ck->opsAbsorbed < 1 || size_t(ck->opsAbsorbed) >= region->size() || !(*region)[size_t(ck->opsAbsorbed)]))
        continue;  // a region is taken only up to a closed prefix
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
  if (step.kernel && !region && chainOps.size() < chain.ops.size()) {
    const size_t t = chainOps.size();
    if (std::unique_ptr<OpKernel> both = withTrailingTable(step.kernel, *chain.ops[t], chain.constants[t])) {
      step.kernel = std::move(both);
      chainOps.push_back(chain.ops[t]);
    }
  }
  return Status::ok();
}

// The step's operand slots. An operand made by another op of the step is internal to it (-1); one whose producer
// is still held back (not absorbed by this kernel) gets that producer's step first.
Status ExecutionPlan::wireOperands(CompileState& st, Step& step) {
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
      if (auto held = st.heldBack.find(v); held != st.heldBack.end()) {
        OpChain alone;
        alone.target = &st.target;
        alone.ops = {held->second};
        alone.constants = {constantsOf(st, held->second)};
        st.heldBack.erase(held);
        Result<int> done = compileStep(st, alone);
        if (!done) return done.status();
      }
      auto it = st.slotOf.find(v);
      if (it == st.slotOf.end()) return Status::internal(step.ops[k]->describe() + ": operand used before definition");
      in.push_back(it->second);
    }
    step.inSlots.push_back(std::move(in));
  }
  return Status::ok();
}

// A oneDNN step's run-time float operands that its kernel does not check itself are scanned for inf/NaN.
void ExecutionPlan::guardSpecials(Step& step) const {
  if (!step.kernel || step.kernel->implName().rfind("onednn:", 0) != 0) return;
  for (size_t k = 0; k < step.ops.size(); ++k)
    for (size_t j = 0; j < step.inSlots[k].size(); ++j)
      if (int s = step.inSlots[k][j]; s >= 0 && isFloat(slots_[s].dtype) && slots_[s].kind != Slot::Kind::Constant &&
          !step.kernel->rejectsNonFinite(int(k), int(j)))
        step.specialGuard.push_back(s);
}

// A reshape only renames bytes: its result aliases its input (no copy, no extra memory).
void ExecutionPlan::aliasReshape(Step& step) {
  const ir::Operation* last = step.ops.back();
  if (step.kernel || last->name != "tosa.reshape" || step.outSlots.size() != 1) return;
  int src = step.inSlots[0][0];
  Slot& out = slots_[step.outSlots[0]];
  if (slots_[src].dtype == out.dtype && slots_[src].bytes == out.bytes) {
    out.kind = Slot::Kind::Alias;
    out.aliasOf = src;
    step.aliasOnly = true;
  }
}

void ExecutionPlan::recordProfile(Step& step) {
  StepProfile p;
  p.opType = opTypeName(step.ops);
  p.location = step.ops[size_t(step.chainBegin)]->loc.name;
  p.impl = step.aliasOnly ? "alias" : step.kernel ? step.kernel->implName() : "ref (fallback)";
  p.flops = step.kernel ? step.kernel->flops() : 0;
  p.fallback = !step.kernel && !step.aliasOnly;
  profiles_.push_back(p);
  step.profileIndex = int(profiles_.size()) - 1;
}

// Folds no step read (outputs) are made; the function's results become the output slots.
Status ExecutionPlan::finishFunction(CompileState& st) {
  for (size_t s = 0; s < slots_.size(); ++s) {
    materializeFold(int(s));
    // A released original that only its fold read: the folded constant stands for it (counted once).
    if (slots_[s].onlyFolded && slots_[s].released) constantBytes_ -= slots_[s].bytes;
  }
  for (const ir::Value* v : st.fn.body.terminator()->operands) {
    auto it = st.slotOf.find(v);
    if (it == st.slotOf.end()) return Status::internal("function result used before definition");
    outputSlots_.push_back(it->second);
  }
  return Status::ok();
}

}  // namespace tosakit::fast

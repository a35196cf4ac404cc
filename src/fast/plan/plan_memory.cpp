// ExecutionPlan's memory: constants (folded reshapes, release once packed, rebuild on demand) and the static
// arena plan of the intermediates.
#include <algorithm>

#include "core/process_memory.h"
#include "core/size_budget.h"
#include "fast/plan/plan_internal.h"

namespace tosakit::fast {

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

}  // namespace tosakit::fast

// The execution interface every backend implements (reference now, optimized later). Callers (Session, CLI,
// tests) see only this.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace tosakit {

// Called after each op with its result tensors (for layer-by-layer capture and comparison).
using OpObserver = std::function<void(const ir::Operation& op, const std::vector<Tensor>& results)>;

// Hook for tosa.custom: (operator name, domain name, implementation attrs, inputs) -> outputs.
using CustomOpImpl = std::function<Status(const ir::Operation& op, const std::vector<const Tensor*>& inputs,
                                          std::vector<Tensor>& outputs)>;

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // Runs `fn` of its module on inputs (in argument order); fills outputs (in result order).
  virtual Status run(const ir::Function& fn, const ir::TargetEnv& target, const std::vector<Tensor>& inputs,
                     std::vector<Tensor>& outputs, const OpObserver& observer) = 0;
  // Registers an implementation of tosa.custom for `operatorName` (the op's operator_name attribute).
  virtual void registerCustomOp(const std::string& operatorName, CustomOpImpl impl) = 0;
  // Upper bound on the iterations of one while_loop before the run stops with an error (no hang).
  virtual void setMaxLoopIterations(int64_t n) = 0;
  // Precise mode: floating-point tensors computed and returned unrounded in fp64 (the spec's reference_fp64
  // of 1.10); a backend without it reports Unsupported when asked to turn it on.
  virtual Status setPrecise(bool on) {
    return on ? Status::unsupported("backend '" + name() + "' has no precise (fp64) mode") : Status::ok();
  }
};

// The reference backend (golden model); its variable state lives as long as the object.
std::unique_ptr<Backend> createReferenceBackend();

}  // namespace tosakit

// libFuzzer harness for `tosakit check`'s side of judging results (src/compliance): a mutated .npz (or .npy) is
// read as the implementation's result file (npy::parseNpz / parseNpy), its tensors adapted to the declared output type
// (npy::adaptToDType) and judged by compliance::checkTensor in every compliance mode against a reference and
// bounds that are also taken from the archive (member 1 and 2, when present) or fixed. Shapes, dtypes and
// values are all hostile: a mismatch must be a failed check or an error, never a crash or sanitizer report.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "compliance/compliance.h"
#include "core/size_budget.h"
#include "formats/npy/npy.h"

using namespace tosakit;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  setMemoryBudget(int64_t(64) << 20);
  return 0;
}

// The tensors of an .npz, or of a single .npy: a mutated .npz rarely survives its CRCs, a mutated .npy reaches
// checkTensor with hostile shapes, dtypes and values.
static Result<npy::NamedTensors> parseResult(const uint8_t* data, size_t size) {
  auto npz = npy::parseNpz(data, size, "fuzz.npz");
  if (npz) return npz;
  if (npz.status().message().empty()) std::abort();
  auto t = npy::parseNpy(data, size, "fuzz.npy");
  if (!t) return t.status();
  return npy::NamedTensors{{"y", std::move(*t)}};
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto npz = parseResult(data, size);
  if (!npz) {
    if (npz.status().message().empty()) std::abort();
    return 0;
  }
  if (npz->empty()) return 0;
  static const char* const kModes[] = {"EXACT",
                                       "ULP:ulp=1",
                                       "FP_SPECIAL",
                                       "ABS_ERROR:base_bound=2,lower_bound=0.5",
                                       "DOT_PRODUCT:s=0,ksb=4",
                                       "RELATIVE:max=1,scale=0.006,ulp_bound=20",
                                       "REDUCE_PRODUCT:n=3",
                                       "RESCALE_INEXACT"};
  const Tensor fixedRef = Tensor::fromDoubles(DType::FP64, {2, 3}, {0, 1, -1, 0.5, 1e30, -0.0});
  const Tensor& ref = npz->size() > 1 ? (*npz)[1].second : fixedRef;
  const Tensor* bounds = npz->size() > 2 ? &(*npz)[2].second : &fixedRef;
  for (DType declared : {DType::FP32, DType::FP16, DType::BF16, DType::I8, DType::I32}) {
    auto impl = npy::adaptToDType((*npz)[0].second, declared, "fuzz.npz: result");
    if (!impl) {
      if (impl.status().message().empty()) std::abort();
      continue;
    }
    for (const char* spec : kModes) {
      auto mode = compliance::parseComplianceSpec(spec);
      if (!mode) std::abort();  // the fixed specs are valid
      compliance::ComplianceResult r = compliance::checkTensor(*mode, *impl, ref, bounds);
      if (!r.pass && r.reason.empty()) std::abort();
    }
  }
  return 0;
}

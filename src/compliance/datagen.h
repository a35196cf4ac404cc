// Test data generation of spec Appendix A ("Random Data Generation", "Floating-Point Test Data Generator",
// "Floating-Point Operator Test Data"): set_data, tosa_pro_fp_data for test sets S0..S5 and the per-operator
// input layouts (CONV2D, CONV3D, DEPTHWISE_CONV2D, MATMUL, TRANSPOSE_CONV2D, FFT2D, RFFT2D, REDUCE_SUM,
// AVG_POOL2D).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/status.h"
#include "core/tensor.h"
#include "ir/graph.h"

namespace tosakit::compliance {

// Spec 5.1 set_data(set, index): pseudo-random value in [-1, 1] (computed in fp32 as the spec says).
float setData(uint32_t set, uint32_t index);

// set_data with the sequence of each set cached, so filling a tensor is linear in its size.
class SetDataCache {
 public:
  float get(uint32_t set, uint32_t index);

 private:
  std::unordered_map<uint32_t, std::vector<uint32_t>> r_;  // set -> r values for index 0..n-1
};

// Bound B of spec 5.2 for input type(s) and output (accumulator) type. weightType == inType when there is
// one input type. Returns 0 for combinations the table does not list.
double boundB(DType inType, DType weightType, DType outType);

// Spec 5.2 tosa_pro_fp_data(S, KS, p, k, i) with bound B.
double proFpData(SetDataCache& sd, int S, int64_t KS, int p, int64_t k, int64_t i, double B);

// Generates the inputs of `fn` for test set S (0..5). An argument used directly as an input, weight or bias
// of an operator of spec 5.3 follows that operator's formula; every other floating-point argument gets
// set_data values of a set derived from `seed`, integer arguments the same values scaled to their type's
// range, bool arguments their sign.
Result<std::vector<std::pair<std::string, Tensor>>> generateInputs(const ir::Function& fn, int S, uint32_t seed);

}  // namespace tosakit::compliance

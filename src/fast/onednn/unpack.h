// Private to src/fast/onednn/*.cpp (includes oneDNN): rebuilding a constant operand from the copy a kernel
// packed into oneDNN's layout, for the plan's release of the module's copy (docs/FAST.md, "Memory").
#pragma once
#include <cstring>
#include <string>

#include "fast/onednn/common.h"

namespace tosakit::fast::dnn {

// The tensor TOSA stored (dtype, shape; laid out as userMd describes it) from float weights a reorder packed:
// the reverse reorder, which copies every value. Checked: packing the result again must give the packed copy
// byte for byte (zero padding included); a layout reorder stores every value somewhere, so equal packings
// mean equal tensors. A mismatch is an internal error, never a wrong weight.
inline Result<Tensor> unpackWeights(const dnnl::memory& packed, const dnnl::memory::desc& userMd, DType dtype,
                                    const Shape& shape) {
  Tensor t(dtype, shape);
  if (t.byteSize() != userMd.get_size())
    return Status::internal("unpack weights: " + t.summary(0) + " is not " + std::to_string(userMd.get_size()) +
                            " bytes");
  try {
    dnnl::memory src = packed, user(userMd, engine(), t.data());  // handles to the same memories
    dnnl::reorder(src, user).execute(stream(), src, user);
    dnnl::memory again(src.get_desc(), engine());
    dnnl::reorder(user, again).execute(stream(), user, again);
    stream().wait();
    if (std::memcmp(again.get_data_handle(), src.get_data_handle(), src.get_desc().get_size()) != 0)
      return Status::internal("unpack weights: " + t.summary(0) + " does not pack back to the kernel's copy");
  } catch (const dnnl::error& e) { return Status::internal(std::string("unpack weights: ") + e.what()); }
  return t;
}

}  // namespace tosakit::fast::dnn

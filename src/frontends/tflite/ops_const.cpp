// Operators folded at import because their inputs are constants of the file: DEQUANTIZE of fp16 / int8
// weights (TFLite's "fp16 weights" and "dynamic range" models) and DENSIFY of sparse weights.
#include <cstring>
#include <functional>

#include "core/size_budget.h"
#include "frontends/tflite/tflite_internal.h"

namespace tosakit::tflite {
namespace {

// One of a sparse dimension's index vectors (int32, uint16 or uint8 values).
struct IndexVector {
  fb::SparseIndexVector type = fb::SparseIndexVector::NONE;
  const void* table = nullptr;
  int64_t size() const {
    if (!table) return 0;  // a union type tag without its table (tflite_fuzz finding)
    switch (type) {
      case fb::SparseIndexVector::Int32Vector: {
        auto* v = static_cast<const fb::Int32Vector*>(table)->values();
        return v ? v->size() : 0;
      }
      case fb::SparseIndexVector::Uint16Vector: {
        auto* v = static_cast<const fb::Uint16Vector*>(table)->values();
        return v ? v->size() : 0;
      }
      case fb::SparseIndexVector::Uint8Vector: {
        auto* v = static_cast<const fb::Uint8Vector*>(table)->values();
        return v ? v->size() : 0;
      }
      default: return 0;
    }
  }
  int64_t at(int64_t i) const {  // callers check i < size()
    switch (type) {
      case fb::SparseIndexVector::Int32Vector:
        return static_cast<const fb::Int32Vector*>(table)->values()->Get(uint32_t(i));
      case fb::SparseIndexVector::Uint16Vector:
        return static_cast<const fb::Uint16Vector*>(table)->values()->Get(uint32_t(i));
      default: return static_cast<const fb::Uint8Vector*>(table)->values()->Get(uint32_t(i));
    }
  }
};

// DEQUANTIZE of a constant: fp16 -> fp32 exactly; int8/int16 -> scale * (q - zero_point), per channel along the
// quantized dimension. A run-time DEQUANTIZE belongs to the quantized lowerings.
Status opDequantize(Importer& im) {
  TVal& x = im.in(0);
  if (!x.isConst()) return Status::unsupported("DEQUANTIZE of a run-time tensor is not supported yet");
  const Tensor& c = *x.c;
  Tensor out(DType::FP32, c.shape());
  if (isFloat(c.dtype())) {
    for (int64_t i = 0; i < c.size(); ++i) out.setFloat(i, c.getFloat(i));
    return im.setConstOut(0, std::move(out));
  }
  const QuantParams& q = x.quant;
  if (!q.present()) return Status::invalid("DEQUANTIZE of an integer tensor without quantization parameters");
  const bool perChannel = q.scale.size() > 1;
  if (perChannel && (q.dim < 0 || q.dim >= c.rank() || int64_t(q.scale.size()) != c.shape()[size_t(q.dim)]))
    return Status::invalid("quantized dimension " + std::to_string(q.dim) + " does not match " +
                           std::to_string(q.scale.size()) + " scales");
  int64_t inner = 1;
  for (int d = perChannel ? q.dim + 1 : c.rank(); d < c.rank(); ++d) inner *= c.shape()[size_t(d)];
  const int64_t channels = int64_t(q.scale.size());
  for (int64_t i = 0; i < c.size(); ++i) {
    const size_t ch = perChannel ? size_t((i / inner) % channels) : 0;
    out.setFloat(i, float(q.scale[ch]) * float(c.getInt(i) - q.zeroPoint[ch]));
  }
  return im.setConstOut(0, std::move(out));
}

Status opDensify(Importer& im) {
  const int t = im.inputTensor(0);
  if (t < 0) return Status::invalid("DENSIFY without an input");
  const fb::Tensor& tensor = *im.g.tensors()->Get(uint32_t(t));
  const TVal& x = im.vals[size_t(t)];
  const auto* buffers = im.model.buffers();  // may be absent (tflite_fuzz finding)
  const fb::Buffer* buf = buffers && tensor.buffer() < buffers->size() ? buffers->Get(tensor.buffer()) : nullptr;
  if (!tensor.sparsity() || !buf || !buf->data())
    return Status::unsupported("DENSIFY of a tensor that is not a sparse constant");
  auto dense = densify(tensor, *buf, x.dtype, x.shape);
  if (!dense) return dense.status();
  return im.setConstOut(0, std::move(*dense));
}

}  // namespace

// TFLite's sparse format (a variant of TACO): the n dimensions of the dense tensor, plus k block dimensions,
// are traversed in `traversal_order`; each level is dense (its size) or compressed (CSR segments and indices).
// A leaf's position counts the values stored in the buffer. Every index is checked: a hostile file can only
// be refused.
Result<Tensor> densify(const fb::Tensor& t, const fb::Buffer& buffer, DType dtype, const Shape& shape) {
  const fb::SparsityParameters* sp = t.sparsity();
  const size_t n = shape.size();
  const size_t k = sp->block_map() ? sp->block_map()->size() : 0;
  const size_t levels = n + k;
  if (!sp->traversal_order() || sp->traversal_order()->size() != levels || !sp->dim_metadata() ||
      sp->dim_metadata()->size() != levels || levels > 32)
    return Status::invalid("sparse tensor: traversal order and dimension metadata must have " + std::to_string(levels) +
                           " entries");
  std::vector<int> order(levels), levelOf(levels, -1);
  for (size_t l = 0; l < levels; ++l) {
    const int d = sp->traversal_order()->Get(uint32_t(l));
    if (d < 0 || size_t(d) >= levels || levelOf[size_t(d)] >= 0)
      return Status::invalid("sparse tensor: traversal order is not a permutation");
    order[l] = d;
    levelOf[size_t(d)] = int(l);
  }
  // Extent of each traversed dimension: a blocked dimension counts blocks; a block dimension its block size.
  std::vector<int64_t> extent(shape.begin(), shape.end());
  std::vector<int> blockOf(n, -1);
  for (size_t j = 0; j < k; ++j) {
    const int d = sp->block_map()->Get(uint32_t(j));
    const fb::DimensionMetadata* meta = sp->dim_metadata()->Get(uint32_t(levelOf[n + j]));
    const int64_t bs = meta->dense_size();
    if (d < 0 || size_t(d) >= n || blockOf[size_t(d)] >= 0 || meta->format() != fb::DimensionType::DENSE || bs <= 0 ||
        shape[size_t(d)] % bs != 0)
      return Status::invalid("sparse tensor: bad block map or block size");
    blockOf[size_t(d)] = int(j);
    extent[size_t(d)] /= bs;
    extent.push_back(bs);
  }
  const size_t es = storageBytes(dtype);
  const int64_t stored = int64_t(buffer.data()->size() / es);
  if (buffer.data()->size() % es != 0)
    return Status::invalid("sparse tensor: buffer size is not a multiple of the element size");
  Tensor out(dtype, shape);
  std::vector<int64_t> idx(levels, 0);
  Status failed;
  std::function<bool(size_t, int64_t)> visit = [&](size_t level, int64_t pos) -> bool {
    if (level == levels) {
      if (pos >= stored) {
        failed = Status::invalid("sparse tensor: more values indexed than stored");
        return false;
      }
      int64_t offset = 0;
      for (size_t d = 0; d < n; ++d) {
        int64_t coord = idx[d];
        if (blockOf[d] >= 0) coord = coord * extent[n + size_t(blockOf[d])] + idx[n + size_t(blockOf[d])];
        offset = offset * shape[d] + coord;
      }
      std::memcpy(out.data() + size_t(offset) * es, buffer.data()->data() + size_t(pos) * es, es);
      return true;
    }
    const size_t dim = size_t(order[level]);
    const fb::DimensionMetadata* meta = sp->dim_metadata()->Get(uint32_t(level));
    if (meta->format() == fb::DimensionType::DENSE) {
      if (meta->dense_size() != extent[dim]) {
        failed = Status::invalid("sparse tensor: dense size " + std::to_string(meta->dense_size()) + " of level " +
                                 std::to_string(level) + " should be " + std::to_string(extent[dim]));
        return false;
      }
      for (int64_t i = 0; i < extent[dim]; ++i) {
        idx[dim] = i;
        if (!visit(level + 1, pos * extent[dim] + i)) return false;
      }
      return true;
    }
    IndexVector segments{meta->array_segments_type(), meta->array_segments()};
    IndexVector indices{meta->array_indices_type(), meta->array_indices()};
    if (pos + 1 >= segments.size()) {
      failed = Status::invalid("sparse tensor: segment index out of range at level " + std::to_string(level));
      return false;
    }
    const int64_t begin = segments.at(pos), end = segments.at(pos + 1);
    if (begin < 0 || begin > end || end > indices.size()) {
      failed = Status::invalid("sparse tensor: segment out of range at level " + std::to_string(level));
      return false;
    }
    for (int64_t j = begin; j < end; ++j) {
      const int64_t i = indices.at(j);
      if (i < 0 || i >= extent[dim]) {
        failed = Status::invalid("sparse tensor: index out of range at level " + std::to_string(level));
        return false;
      }
      idx[dim] = i;
      if (!visit(level + 1, j)) return false;
    }
    return true;
  };
  if (!visit(0, 0)) return failed;
  return out;
}

void registerConstOps(HandlerTable& t) {
  t.builtin[int(fb::BuiltinOperator::DEQUANTIZE)] = opDequantize;
  t.builtin[int(fb::BuiltinOperator::DENSIFY)] = opDensify;
}

}  // namespace tosakit::tflite

// Gemm and MatMul (tosa.matmul on rank-3 operands).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <set>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

// ---- matmul / gemm / softmax ----

Status opGemm(Importer& im, const NodeProto& n) {
  OVal &a = im.val(n, 0), &bm = im.val(n, 1);
  TK_RETURN_IF_ERROR(im.requireFloat(n, a));
  TK_RETURN_IF_ERROR(im.requireFloat(n, bm));
  if (a.shape.size() != 2 || bm.shape.size() != 2) return Status::invalid("Gemm operands must be rank 2");
  const bool transA = im.attrInt(n, "transA", 0) != 0, transB = im.attrInt(n, "transB", 0) != 0;
  const float alpha = im.attrFloat(n, "alpha", 1.0f), beta = im.attrFloat(n, "beta", 1.0f);
  auto av = im.get(a, Layout::Plain);
  if (!av) return av.status();
  Value* A = *av;
  if (transA) A = im.b.transpose(A, {1, 0}, im.aux("transA"));
  Value* B;
  if (bm.isConst()) {
    Tensor t = transB ? permuteTensor(*bm.c, {1, 0}) : *bm.c;
    B = im.b.constant(std::move(t), im.aux("B"));
  } else {
    auto bv = im.get(bm, Layout::Plain);
    if (!bv) return bv.status();
    B = transB ? im.b.transpose(*bv, {1, 0}, im.aux("transB")) : *bv;
  }
  const int64_t M = A->type.dims[0], K = A->type.dims[1], N = B->type.dims[1];
  if (B->type.dims[0] != K) return Status::invalid("Gemm inner dimensions differ");
  Value* y = im.matmul3(im.b.reshape(A, {1, M, K}, im.aux("reshapeA")), im.b.reshape(B, {1, K, N}, im.aux("reshapeB")));
  if (alpha != 1.0f) y = im.mul(y, im.scalarF(alpha, 3));
  if (im.hasInput(n, 2) && beta != 0.0f) {
    OVal& c = im.val(n, 2);
    TK_RETURN_IF_ERROR(im.requireFloat(n, c));
    if (!numpyBroadcast(c.shape, {M, N})) return Status::invalid("Gemm C does not broadcast to [M, N]");
    Value* cv;
    if (c.isConst()) {
      Tensor t = *c.c;
      for (int64_t i = 0; i < t.size(); ++i) t.setFloat(i, float(t.getFloat(i)) * beta);
      cv = im.constF(reshapeTensor(t, withRank(c.shape, 3)));
    } else {
      auto r = im.getAsRank(c, 3, Layout::Plain);
      if (!r) return r.status();
      cv = beta != 1.0f ? im.mul(*r, im.scalarF(beta, 3)) : *r;
    }
    y = im.b.add(y, cv, im.aux("add"));
  }
  Value* out = im.b.reshape(y, {M, N}, im.loc);
  im.setValue(n, 0, out, Layout::Plain);
  return Status::ok();
}

Status opMatMul(Importer& im, const NodeProto& n) {
  OVal &a = im.val(n, 0), &bm = im.val(n, 1);
  TK_RETURN_IF_ERROR(im.requireFloat(n, a));
  TK_RETURN_IF_ERROR(im.requireFloat(n, bm));
  Shape as = a.shape, bs = bm.shape;
  if (as.empty() || bs.empty()) return Status::invalid("MatMul of a scalar");
  // numpy.matmul: 1-D operands get a 1 prepended (A) / appended (B), removed from the result.
  const bool a1 = as.size() == 1, b1 = bs.size() == 1;
  if (a1) as.insert(as.begin(), 1);
  if (b1) bs.push_back(1);
  const int64_t M = as[as.size() - 2], K = as.back(), N = bs.back();
  if (bs[bs.size() - 2] != K) return Status::invalid("MatMul inner dimensions differ");
  Shape aBatch(as.begin(), as.end() - 2), bBatch(bs.begin(), bs.end() - 2);
  auto batch = numpyBroadcast(aBatch, bBatch);
  if (!batch) return Status::invalid("MatMul batch dimensions do not broadcast");
  const int64_t nb = numElements(*batch), na = numElements(aBatch), nbb = numElements(bBatch);
  auto av = im.get(a, Layout::Plain);
  if (!av) return av.status();
  auto bv = im.get(bm, Layout::Plain);
  if (!bv) return bv.status();
  Value *A, *B;
  if (nbb == 1 && bBatch.size() <= aBatch.size()) {
    // B shared by every batch: fold A's batch into its rows.
    A = im.b.reshape(*av, {1, na * M, K}, im.aux("reshapeA"));
    B = im.b.reshape(*bv, {1, K, N}, im.aux("reshapeB"));
  } else if (withRank(aBatch, batch->size()) == *batch && withRank(bBatch, batch->size()) == *batch) {
    A = im.b.reshape(*av, {nb, M, K}, im.aux("reshapeA"));
    B = im.b.reshape(*bv, {nb, K, N}, im.aux("reshapeB"));
  } else {
    return Status::unsupported("MatMul with broadcast batch dimensions " + shapeToString(aBatch) + " x " +
                               shapeToString(bBatch));
  }
  Value* y = im.matmul3(A, B);
  Shape out = *batch;
  if (!a1) out.push_back(M);
  if (!b1) out.push_back(N);
  im.setValue(n, 0, im.b.reshape(y, out, im.loc), Layout::Plain);
  return Status::ok();
}

}  // namespace

void registerMatmulOps(HandlerTable& t) {
  t["Gemm"] = opGemm;
  t["MatMul"] = opMatMul;
}

}  // namespace tosakit::onnx

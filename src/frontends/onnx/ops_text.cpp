// ONNX lowerings: TfIdfVectorizer (integer n-grams; string pools have no TOSA type).
//
// The n-gram pool is constant and the output shape static, so each pool n-gram's count is a sum over start
// positions of AND-ed equalities of shifted slices (one set of slices per skip distance; unigrams once), the
// counts are summed into their output columns by one constant 0/1 matmul, then weighted per mode. Semantics
// follow the ONNX reference implementation (op_tfidf_vectorizer.py, as ONNX Runtime): counts accumulate per
// output column and `weights` is indexed by output column (default all ones).
#include <climits>
#include <map>
#include <utility>

#include "frontends/onnx/importer.h"

namespace tosakit::onnx {
namespace {

struct NGram {
  std::vector<int64_t> items;
  int64_t column;
};

Status opTfIdfVectorizer(Importer& im, const NodeProto& n) {
  OVal& xv = im.val(n, 0);
  if (xv.dtype != DType::I32 && xv.dtype != DType::I64)
    return Status::unsupported("TfIdfVectorizer input of element type " + std::string(dtypeName(xv.dtype)) +
                               " (integer inputs only: string tensors have no TOSA type)");
  if (im.attr(n, "pool_strings"))
    return Status::unsupported("TfIdfVectorizer pool_strings (strings have no TOSA type)");
  const size_t rank = xv.shape.size();
  if (rank != 1 && rank != 2) return Status::invalid("TfIdfVectorizer input must be [C] or [N, C]");
  const std::string mode = im.attrStr(n, "mode", "");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF")
    return Status::invalid("TfIdfVectorizer mode '" + mode + "' is not TF, IDF or TFIDF");
  const int64_t minN = im.attrInt(n, "min_gram_length", 0), maxN = im.attrInt(n, "max_gram_length", 0);
  const int64_t maxSkip = im.attrInt(n, "max_skip_count", 0);
  const std::vector<int64_t> counts = im.attrInts(n, "ngram_counts").value_or(std::vector<int64_t>{});
  const std::vector<int64_t> indexes = im.attrInts(n, "ngram_indexes").value_or(std::vector<int64_t>{});
  const std::vector<int64_t> pool = im.attrInts(n, "pool_int64s").value_or(std::vector<int64_t>{});
  std::vector<float> weights = im.attrFloats(n, "weights").value_or(std::vector<float>{});
  if (minN < 1 || maxN < minN || maxSkip < 0) return Status::invalid("TfIdfVectorizer gram lengths / skip count");
  // ngram_counts[k]: where the (k+1)-grams start in the pool.
  std::vector<NGram> grams;
  for (size_t k = 0; k < counts.size(); ++k) {
    const int64_t len = int64_t(k) + 1;
    const int64_t begin = counts[k], end = k + 1 < counts.size() ? counts[k + 1] : int64_t(pool.size());
    if (begin < 0 || end < begin || end > int64_t(pool.size()) || (end - begin) % len != 0)
      return Status::invalid("TfIdfVectorizer ngram_counts do not partition pool_int64s");
    for (int64_t p = begin; p < end; p += len) {
      const size_t g = grams.size();
      if (g >= indexes.size()) return Status::invalid("TfIdfVectorizer has fewer ngram_indexes than n-grams");
      grams.push_back({std::vector<int64_t>(pool.begin() + p, pool.begin() + p + len), indexes[g]});
    }
  }
  int64_t columns = 0;
  for (const auto& g : grams) columns = std::max(columns, g.column + 1);
  if (columns == 0) return Status::invalid("TfIdfVectorizer has no n-grams");
  if (!weights.empty() && int64_t(weights.size()) < columns)
    return Status::invalid("TfIdfVectorizer has fewer weights than output columns");

  auto x = im.get(xv, Layout::Plain);
  if (!x) return x.status();
  const int64_t B = rank == 2 ? xv.shape[0] : 1, L = xv.shape.back();
  Value* rows = im.reshapeTo(*x, {B, L}, im.aux("rows"));
  std::map<std::pair<int64_t, int64_t>, Value*> slices;  // (start, length) -> shifted slice, shared by n-grams
  auto slice = [&](int64_t start, int64_t len) {
    Value*& s = slices[{start, len}];
    if (!s)
      s = im.b.op1("tosa.slice", {rows, im.b.constShape({0, start}), im.b.constShape({B, len})},
                   ValueType::tensor(DType::I32, {B, len}), {}, im.aux("shifted"));
    return s;
  };
  // Run-time values are i32 (int64 narrowed): a pool item outside i32 never matches.
  auto fitsI32 = [](const NGram& g) {
    for (int64_t v : g.items)
      if (v < INT32_MIN || v > INT32_MAX) return false;
    return true;
  };
  // count[g] for every pool n-gram whose length is in [minN, maxN] (others count 0).
  std::vector<Value*> perGram;
  for (const auto& g : grams) {
    const int64_t len = int64_t(g.items.size());
    Value* total = nullptr;
    if (len >= minN && len <= maxN && fitsI32(g)) {
      for (int64_t skip = 0; skip <= (len == 1 ? 0 : maxSkip); ++skip) {
        const int64_t step = skip + 1, positions = L - (len - 1) * step;
        if (positions <= 0) break;
        Value* match = nullptr;
        for (int64_t t = 0; t < len; ++t) {
          Value* eq = im.binary("tosa.equal", slice(t * step, positions),
                                im.scalarOf(DType::I32, double(g.items[size_t(t)]), 2), DType::Bool);
          match = match ? im.binary("tosa.logical_and", match, eq, DType::Bool) : eq;
        }
        Value* ones = im.castTo(match, DType::I32);
        Value* c = im.b.op1("tosa.reduce_sum", {ones}, ValueType::tensor(DType::I32, {B, 1}),
                            {{"axis", ir::Attribute::integer(1, DType::I32)}}, im.aux("count"));
        total = total ? im.b.add(total, c, im.aux("count")) : c;
      }
    }
    perGram.push_back(total ? total : im.scalarOf(DType::I32, 0, 2));
  }
  // [B, grams] counts, then summed into their output columns (a 0/1 matrix; counts are small integers, exact
  // in float32), as the reference implementation accumulates counts per output column.
  std::vector<Value*> parts;
  for (Value* v : perGram)
    parts.push_back(v->type.dims[0] == B ? v
                                         : im.b.op1("tosa.tile", {v, im.b.constShape({B, 1})},
                                                    ValueType::tensor(DType::I32, {B, 1}), {}, im.aux("zero")));
  const int64_t G = int64_t(grams.size());
  Value* all = parts.size() == 1 ? parts[0]
                                 : im.b.op1("tosa.concat", parts, ValueType::tensor(DType::I32, {B, G}),
                                            {{"axis", ir::Attribute::integer(1, DType::I32)}}, im.aux("counts"));
  Tensor place(DType::FP32, {1, G, columns});
  for (int64_t g = 0; g < G; ++g) place.setFloat(g * columns + grams[size_t(g)].column, 1.0);
  Value* y =
      im.matmul3(im.reshapeTo(im.castTo(all, DType::FP32), {1, B, G}, im.aux("counts")), im.constF(std::move(place)));
  // Mode, per output column j (weights[j], default 1, as the reference implementation indexes them):
  // TF: count; IDF: weights[j] where count > 0; TFIDF: count * weights[j].
  if (mode != "TF") {
    if (mode == "IDF") y = im.binary("tosa.minimum", y, im.scalarF(1.0f, 3), DType::FP32);
    if (!weights.empty()) {
      Tensor w(DType::FP32, {1, 1, columns});
      for (int64_t j = 0; j < columns; ++j) w.setFloat(j, weights[size_t(j)]);
      y = im.mul(y, im.constF(std::move(w)));
    }
  }
  Value* out = im.b.reshape(y, rank == 2 ? Shape{B, columns} : Shape{columns}, im.loc);
  im.setValue(n, 0, out, Layout::Plain);
  return Status::ok();
}

}  // namespace

void registerTextOps(HandlerTable& t) { t["TfIdfVectorizer"] = opTfIdfVectorizer; }

}  // namespace tosakit::onnx

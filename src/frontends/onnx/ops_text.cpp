// ONNX lowerings: TfIdfVectorizer (integer n-grams; string pools have no TOSA type).
//
// The n-gram pool is constant and the output shape static, so each pool n-gram's count is a sum over start
// positions of AND-ed equalities of shifted slices (one set of slices per skip distance), and the counts are
// placed into the output columns, weighted per mode, by one constant matmul.
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
  if (im.attr(n, "pool_strings")) return Status::unsupported("TfIdfVectorizer pool_strings (strings have no TOSA type)");
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
  if (mode != "TF" && weights.size() != grams.size())
    return Status::invalid("TfIdfVectorizer weights must have one value per n-gram");

  auto x = im.get(xv, Layout::Plain);
  if (!x) return x.status();
  const int64_t B = rank == 2 ? xv.shape[0] : 1, L = xv.shape.back();
  Value* rows = im.reshapeTo(*x, {B, L}, im.aux("rows"));
  auto slice = [&](int64_t start, int64_t len) {
    return im.b.op1("tosa.slice", {rows, im.b.constShape({0, start}), im.b.constShape({B, len})},
                    ValueType::tensor(DType::I32, {B, len}), {}, im.aux("shifted"));
  };
  // count[g] for every pool n-gram whose length is in [minN, maxN] (others count 0).
  std::vector<Value*> perGram;
  for (const auto& g : grams) {
    const int64_t len = int64_t(g.items.size());
    Value* total = nullptr;
    if (len >= minN && len <= maxN) {
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
  // [B, grams] counts; IDF uses presence (min(count, 1)).
  std::vector<Value*> parts;
  for (Value* v : perGram) parts.push_back(v->type.dims[0] == B ? v : im.b.op1("tosa.tile", {v, im.b.constShape({B, 1})},
                                                                         ValueType::tensor(DType::I32, {B, 1}), {},
                                                                         im.aux("zero")));
  Value* all = parts.size() == 1 ? parts[0]
                                 : im.b.op1("tosa.concat", parts, ValueType::tensor(DType::I32, {B, int64_t(grams.size())}),
                                            {{"axis", ir::Attribute::integer(1, DType::I32)}}, im.aux("counts"));
  if (mode == "IDF") all = im.binary("tosa.minimum", all, im.scalarOf(DType::I32, 1, 2), DType::I32);
  // Columns: count * (weight for IDF/TFIDF, 1 for TF) at column ngram_indexes[g].
  const int64_t G = int64_t(grams.size());
  Tensor place(DType::FP32, {1, G, columns});
  for (int64_t g = 0; g < G; ++g)
    place.setFloat(g * columns + grams[size_t(g)].column, mode == "TF" ? 1.0 : double(weights[size_t(g)]));
  Value* y = im.matmul3(im.reshapeTo(im.castTo(all, DType::FP32), {1, B, G}, im.aux("counts")), im.constF(std::move(place)));
  Value* out = im.b.reshape(y, rank == 2 ? Shape{B, columns} : Shape{columns}, im.loc);
  im.setValue(n, 0, out, Layout::Plain);
  return Status::ok();
}

}  // namespace

void registerTextOps(HandlerTable& t) { t["TfIdfVectorizer"] = opTfIdfVectorizer; }

}  // namespace tosakit::onnx

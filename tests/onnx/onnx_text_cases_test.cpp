// TfIdfVectorizer (ops_text.cpp) against the ONNX backend node test data (the oracle; all TF mode, integer
// inputs) and hand-computed IDF / TFIDF / skip cases following the ONNX reference implementation
// (onnx/reference/ops/op_tfidf_vectorizer.py, same as ONNX Runtime): counts accumulate per output column,
// weights are indexed by output column, unigrams are counted once (not once per skip distance).
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

TEST(OnnxText, TfBatchOnlyBigramsSkip0) { EXPECT_TRUE(runNodeCase("test_tfidfvectorizer_tf_batch_onlybigrams_skip0")); }
TEST(OnnxText, TfBatchOnlyBigramsSkip5) { EXPECT_TRUE(runNodeCase("test_tfidfvectorizer_tf_batch_onlybigrams_skip5")); }
TEST(OnnxText, TfBatchUniAndBigramsSkip5) {
  EXPECT_TRUE(runNodeCase("test_tfidfvectorizer_tf_batch_uniandbigrams_skip5"));
}
TEST(OnnxText, TfOnlyBigramsSkip0) { EXPECT_TRUE(runNodeCase("test_tfidfvectorizer_tf_only_bigrams_skip0")); }
TEST(OnnxText, TfOnlyBigramsLevelEmpty) { EXPECT_TRUE(runNodeCase("test_tfidfvectorizer_tf_onlybigrams_levelempty")); }
TEST(OnnxText, TfOnlyBigramsSkip5) { EXPECT_TRUE(runNodeCase("test_tfidfvectorizer_tf_onlybigrams_skip5")); }
TEST(OnnxText, TfUniAndBigramsSkip5) { EXPECT_TRUE(runNodeCase("test_tfidfvectorizer_tf_uniandbigrams_skip5")); }

// The MLIR written for a batch case passes mlir-opt-22.
TEST(OnnxText, VerifiedByMlir) {
  EXPECT_TRUE(runNodeCaseVerified("test_tfidfvectorizer_tf_batch_uniandbigrams_skip5"));
}

onnx::OnnxImportOptions unchecked() {
  onnx::OnnxImportOptions o;
  o.runChecker = false;
  return o;
}
Pb strAttr(const std::string& name, const std::string& v) { return Pb().bytes(1, name).bytes(4, v).varint(20, 3); }
Pb floatsAttr(const std::string& name, const std::vector<float>& v) {
  Pb a;
  a.bytes(1, name);
  for (float f : v) a.f32(7, f);
  return a.varint(20, 6);
}

struct TfIdf {
  std::string mode;
  int64_t minN = 1, maxN = 2, maxSkip = 0;
  std::vector<int64_t> counts = {0, 2}, indexes = {0, 1, 2}, pool = {1, 3, 1, 2};  // unigrams 1, 3; bigram (1, 2)
  std::vector<float> weights = {0.5f, 2.0f, 10.0f};
};

// Imports a one-node model with input x (int32 [len(x)]) and runs it on x.
std::vector<double> run(const TfIdf& a, const std::vector<int64_t>& x) {
  std::vector<Pb> attrs = {strAttr("mode", a.mode),
                           intAttr("min_gram_length", a.minN),
                           intAttr("max_gram_length", a.maxN),
                           intAttr("max_skip_count", a.maxSkip),
                           intsAttr("ngram_counts", a.counts),
                           intsAttr("ngram_indexes", a.indexes),
                           intsAttr("pool_int64s", a.pool)};
  if (!a.weights.empty()) attrs.push_back(floatsAttr("weights", a.weights));
  Pb g;
  g.msg(1, node({"TfIdfVectorizer", "tfidf", {"x"}, {"y"}, attrs}));
  g.bytes(2, "g");
  const int64_t len = int64_t(x.size());
  g.msg(11, Pb().bytes(1, "x").msg(2, tensorType({len}, 6 /*INT32*/)));
  g.msg(12, valueInfo("y", {int64_t(*std::max_element(a.indexes.begin(), a.indexes.end()) + 1)}));
  auto m = onnx::importOnnxBytes(model(g, 13), "tfidf.onnx", unchecked());
  EXPECT_TRUE(m.isOk()) << m.status().toString();
  if (!m.isOk()) return {};
  auto s = Session::create(std::move(*m));
  RunResult r;
  EXPECT_TRUE((*s)->run({{"x", Tensor::fromInts(DType::I32, {len}, x)}}, r).isOk());
  return r.outputs.empty() ? std::vector<double>{} : r.outputs[0].second.toDoubles();
}

// X = [1, 2, 1, 2, 3]: unigram 1 -> 2, unigram 3 -> 1, bigram (1, 2) -> 2 (positions 0 and 2).
const std::vector<int64_t> kX = {1, 2, 1, 2, 3};

// TFIDF: count * weight = [2*0.5, 1*2, 2*10].
TEST(OnnxText, TfIdfHandComputed) {
  TfIdf a;
  a.mode = "TFIDF";
  EXPECT_EQ(run(a, kX), (std::vector<double>{1, 2, 20}));
}
// IDF: the weight where the count is > 0.
TEST(OnnxText, IdfHandComputed) {
  TfIdf a;
  a.mode = "IDF";
  EXPECT_EQ(run(a, kX), (std::vector<double>{0.5, 2, 10}));
}
// Weights belong to output columns: ngram_indexes {2, 0, 1} puts the counts (2, 1, 2) into columns
// [1, 2, 2]; TFIDF = [1*0.5, 2*2, 2*10].
TEST(OnnxText, WeightsIndexedByOutputColumn) {
  TfIdf a;
  a.mode = "TFIDF";
  a.indexes = {2, 0, 1};
  EXPECT_EQ(run(a, kX), (std::vector<double>{0.5, 4, 20}));
}
// IDF without weights: all-one weights, i.e. presence. X = [1, 2, 1, 2] has no 3.
TEST(OnnxText, IdfDefaultWeightsIsPresence) {
  TfIdf a;
  a.mode = "IDF";
  a.weights = {};
  EXPECT_EQ(run(a, {1, 2, 1, 2}), (std::vector<double>{1, 0, 1}));
}
// X = [1, 1, 1], pool: unigram 1 and bigram (1, 1), max_skip_count 1: the unigram counts 3 (once, not per
// skip); the bigram counts 2 at skip 0 (positions 0-1, 1-2) + 1 at skip 1 (positions 0-2) = 3.
TEST(OnnxText, UnigramsCountedOncePerSkip) {
  TfIdf a;
  a.mode = "TF";
  a.maxSkip = 1;
  a.counts = {0, 1};
  a.indexes = {0, 1};
  a.pool = {1, 1, 1};
  a.weights = {};
  EXPECT_EQ(run(a, {1, 1, 1}), (std::vector<double>{3, 3}));
}
// min_gram_length 2: the unigrams of the pool count 0 (X as above: bigram (1, 2) -> 2).
TEST(OnnxText, MinGramLengthExcludesUnigrams) {
  TfIdf a;
  a.mode = "TF";
  a.minN = 2;
  EXPECT_EQ(run(a, kX), (std::vector<double>{0, 0, 2}));
}

// A string pool has no TOSA type: the node is unsupported, named with the reason.
TEST(OnnxText, StringPoolIsUnsupported) {
  Pb strs;
  strs.bytes(1, "pool_strings").bytes(9, "a").bytes(9, "b").varint(20, 8 /*STRINGS*/);
  Pb g;
  g.msg(1,
        node({"TfIdfVectorizer",
              "tfidf_str_node",
              {"x"},
              {"y"},
              {strAttr("mode", "TF"), intAttr("min_gram_length", 1), intAttr("max_gram_length", 1),
               intsAttr("ngram_counts", {0}), intsAttr("ngram_indexes", {0, 1}), strs}}));
  g.bytes(2, "g");
  g.msg(11, Pb().bytes(1, "x").msg(2, tensorType({5}, 6 /*INT32*/)));
  g.msg(12, valueInfo("y", {2}));
  auto m = onnx::importOnnxBytes(model(g, 13), "tfidf_str.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  const std::string msg = m.status().toString();
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << msg;
  EXPECT_NE(msg.find("tfidf_str_node"), std::string::npos) << msg;
  EXPECT_NE(msg.find("pool_strings"), std::string::npos) << msg;
}

// A string input tensor is rejected at the graph input (TOSA has no string type).
TEST(OnnxText, StringInputIsUnsupported) {
  Pb g;
  g.msg(1, node({"TfIdfVectorizer", "tfidf", {"x"}, {"y"}, {strAttr("mode", "TF")}}));
  g.bytes(2, "g");
  g.msg(11, Pb().bytes(1, "x").msg(2, tensorType({5}, 8 /*STRING*/)));
  g.msg(12, valueInfo("y", {3}));
  auto m = onnx::importOnnxBytes(model(g, 13), "tfidf_str.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
  EXPECT_NE(m.status().toString().find("input 'x'"), std::string::npos) << m.status().toString();
}

}  // namespace
}  // namespace tosakit::onnxtest

// TfIdfVectorizer (ops_text.cpp) against the ONNX backend node test data (the oracle; all TF mode, integer
// inputs) and hand-computed IDF / TFIDF weights.
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

class OnnxTextCase : public ::testing::TestWithParam<std::string> {};
TEST_P(OnnxTextCase, Passes) { EXPECT_TRUE(runNodeCase(GetParam())); }
const std::vector<std::string> kCases = {
    "test_tfidfvectorizer_tf_batch_onlybigrams_skip0", "test_tfidfvectorizer_tf_batch_onlybigrams_skip5",
    "test_tfidfvectorizer_tf_batch_uniandbigrams_skip5", "test_tfidfvectorizer_tf_only_bigrams_skip0",
    "test_tfidfvectorizer_tf_onlybigrams_levelempty", "test_tfidfvectorizer_tf_onlybigrams_skip5",
    "test_tfidfvectorizer_tf_uniandbigrams_skip5",
};
INSTANTIATE_TEST_SUITE_P(Node, OnnxTextCase, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param.substr(5); });

TEST(OnnxText, VerifiedByMlir) { EXPECT_TRUE(runNodeCaseVerified("test_tfidfvectorizer_tf_batch_uniandbigrams_skip5")); }

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

// X = [1, 2, 1, 2, 3]; pool: unigrams 1, 3 and the bigram (1, 2) -> counts 2, 1, 2.
// TFIDF with weights 0.5, 2, 10: [1, 2, 20]; IDF (presence times weight): [0.5, 2, 10].
std::vector<double> tfidf(const std::string& mode) {
  Pb g;
  g.msg(1, node({"TfIdfVectorizer", "tfidf", {"x"}, {"y"},
                 {strAttr("mode", mode), intAttr("min_gram_length", 1), intAttr("max_gram_length", 2),
                  intAttr("max_skip_count", 0), intsAttr("ngram_counts", {0, 2}), intsAttr("ngram_indexes", {0, 1, 2}),
                  intsAttr("pool_int64s", {1, 3, 1, 2}), floatsAttr("weights", {0.5f, 2.0f, 10.0f})}}));
  g.bytes(2, "g");
  g.msg(11, Pb().bytes(1, "x").msg(2, tensorType({5}, 6 /*INT32*/)));
  g.msg(12, valueInfo("y", {3}));
  auto m = onnx::importOnnxBytes(model(g, 13), "tfidf.onnx", unchecked());
  EXPECT_TRUE(m.isOk()) << m.status().toString();
  if (!m.isOk()) return {};
  auto s = Session::create(std::move(*m));
  RunResult r;
  EXPECT_TRUE((*s)->run({{"x", Tensor::fromInts(DType::I32, {5}, {1, 2, 1, 2, 3})}}, r).isOk());
  return r.outputs.empty() ? std::vector<double>{} : r.outputs[0].second.toDoubles();
}

TEST(OnnxText, TfIdfHandComputed) { EXPECT_EQ(tfidf("TFIDF"), (std::vector<double>{1, 2, 20})); }
TEST(OnnxText, IdfHandComputed) { EXPECT_EQ(tfidf("IDF"), (std::vector<double>{0.5, 2, 10})); }

// A string pool (and string input) has no TOSA type: named as unsupported.
TEST(OnnxText, StringInputIsUnsupported) {
  Pb g;
  g.msg(1, node({"TfIdfVectorizer", "tfidf", {"x"}, {"y"}, {strAttr("mode", "TF")}}));
  g.bytes(2, "g");
  g.msg(11, Pb().bytes(1, "x").msg(2, tensorType({5}, 8 /*STRING*/)));
  g.msg(12, valueInfo("y", {3}));
  auto m = onnx::importOnnxBytes(model(g, 13), "tfidf_str.onnx", unchecked());
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
}

}  // namespace
}  // namespace tosakit::onnxtest

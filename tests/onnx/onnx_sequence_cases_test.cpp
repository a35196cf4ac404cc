// Sequences resolved at import (ops_sequence.cpp) against the ONNX backend test data ("simple" category:
// models whose graph inputs and outputs are tensors and whose sequences stay inside the graph; positions are
// initializers). Independent oracle: the ONNX test data's expected outputs.
#include "onnx_node_case.h"
#include "onnx_test_util.h"

namespace tosakit::onnxtest {
namespace {

onnx::OnnxImportOptions unchecked() {  // the hand-built models are checked by the importer only
  onnx::OnnxImportOptions o;
  o.runChecker = false;
  return o;
}

constexpr const char* kSimple = "/usr/share/libonnx-testdata/data/simple";

// SequenceEmpty -> 3 x SequenceInsert -> SequenceAt.
TEST(OnnxSequence, EmptyInsertAt) { EXPECT_TRUE(runNodeCase("test_sequence_model1", {}, kSimple)); }
// SequenceConstruct -> SequenceErase -> SequenceAt.
TEST(OnnxSequence, ConstructEraseAt) { EXPECT_TRUE(runNodeCase("test_sequence_model2", {}, kSimple)); }
// SequenceConstruct -> SequenceErase -> SequenceInsert -> SequenceAt.
TEST(OnnxSequence, ConstructEraseInsertAt) { EXPECT_TRUE(runNodeCase("test_sequence_model3", {}, kSimple)); }
// ConcatFromSequence along an existing axis, and stacked on a new axis.
TEST(OnnxSequence, ConcatFromSequence) { EXPECT_TRUE(runNodeCase("test_sequence_model4", {}, kSimple)); }
TEST(OnnxSequence, ConcatFromSequenceNewAxis) { EXPECT_TRUE(runNodeCase("test_sequence_model5", {}, kSimple)); }
// SplitToSequence -> SequenceLength (a constant).
TEST(OnnxSequence, SplitToSequenceLength) { EXPECT_TRUE(runNodeCase("test_sequence_model6", {}, kSimple)); }

// A sequence-typed graph input has no TOSA type.
TEST(OnnxSequence, SequenceGraphInputIsUnsupported) {
  const std::string file = std::string(kOnnxNodeDataDir) + "/test_sequence_insert_at_back/model.onnx";
  auto m = onnx::importOnnx(file);
  ASSERT_FALSE(m.isOk());
  EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
  EXPECT_NE(m.status().message().find("input 'sequence': only tensor inputs are supported"), std::string::npos)
      << m.status().toString();
}

// A sequence reaching a graph output, and a run-time position: both named.
TEST(OnnxSequence, SequenceOutputAndRunTimePositionAreUnsupported) {
  {
    Pb g;
    g.msg(1, node({"SequenceConstruct", "make", {"x", "x"}, {"s"}, {}}));
    g.bytes(2, "g");
    g.msg(11, valueInfo("x", {2}));
    g.msg(12, valueInfo("s", {2}));
    auto m = onnx::importOnnxBytes(model(g), "seq_out.onnx", unchecked());
    ASSERT_FALSE(m.isOk());
    EXPECT_NE(m.status().message().find("output 's'"), std::string::npos) << m.status().toString();
    EXPECT_NE(m.status().message().find("sequence"), std::string::npos) << m.status().toString();
  }
  {
    Pb g;
    g.msg(1, node({"SequenceConstruct", "make", {"x", "x"}, {"s"}, {}}));
    g.msg(1, node({"SequenceAt", "at", {"s", "p"}, {"y"}, {}}));
    g.bytes(2, "g");
    g.msg(11, valueInfo("x", {2}));
    g.msg(11, Pb().bytes(1, "p").msg(2, tensorType({}, 7 /*INT64*/)));
    g.msg(12, valueInfo("y", {2}));
    auto m = onnx::importOnnxBytes(model(g), "seq_pos.onnx", unchecked());
    ASSERT_FALSE(m.isOk());
    EXPECT_EQ(m.status().code(), StatusCode::Unsupported) << m.status().toString();
    EXPECT_NE(m.status().message().find("'at' (SequenceAt): position 'p' must be a constant"), std::string::npos)
        << m.status().toString();
  }
}

}  // namespace
}  // namespace tosakit::onnxtest

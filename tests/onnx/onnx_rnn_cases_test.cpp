// RNN / GRU / LSTM against the ONNX backend node test data (independent oracle: ONNX's reference
// implementation). W, R, B, peepholes are model parameters (bound); X, initial states and sequence_lens stay
// run-time inputs except where noted.
#include "onnx_node_case.h"

namespace tosakit::onnxtest {
namespace {

TEST(OnnxRnn, SimpleRnnDefaults) { EXPECT_TRUE(runNodeCase("test_simple_rnn_defaults", {1, 2})); }
TEST(OnnxRnn, SimpleRnnWithInitialBias) { EXPECT_TRUE(runNodeCase("test_simple_rnn_with_initial_bias", {1, 2, 3})); }
TEST(OnnxRnn, SimpleRnnBatchwise) { EXPECT_TRUE(runNodeCase("test_simple_rnn_batchwise", {1, 2})); }
TEST(OnnxRnn, RnnSeqLength) { EXPECT_TRUE(runNodeCase("test_rnn_seq_length", {1, 2, 3})); }
TEST(OnnxRnn, GruDefaults) { EXPECT_TRUE(runNodeCase("test_gru_defaults", {1, 2})); }
TEST(OnnxRnn, GruWithInitialBias) { EXPECT_TRUE(runNodeCase("test_gru_with_initial_bias", {1, 2, 3})); }
TEST(OnnxRnn, GruSeqLength) { EXPECT_TRUE(runNodeCase("test_gru_seq_length", {1, 2, 3})); }
TEST(OnnxRnn, GruBatchwise) { EXPECT_TRUE(runNodeCase("test_gru_batchwise", {1, 2})); }
TEST(OnnxRnn, LstmDefaults) { EXPECT_TRUE(runNodeCase("test_lstm_defaults", {1, 2})); }
TEST(OnnxRnn, LstmWithInitialBias) { EXPECT_TRUE(runNodeCase("test_lstm_with_initial_bias", {1, 2, 3})); }
TEST(OnnxRnn, LstmBatchwise) { EXPECT_TRUE(runNodeCase("test_lstm_batchwise", {1, 2})); }
// sequence_lens (input 4) stays a run-time input here: the masks are computed in the graph.
TEST(OnnxRnn, LstmWithPeepholes) { EXPECT_TRUE(runNodeCase("test_lstm_with_peepholes", {1, 2, 3, 7})); }
// Weights as run-time inputs work too (nothing bound but nothing shape-determining either).
TEST(OnnxRnn, GruWithRunTimeWeights) { EXPECT_TRUE(runNodeCase("test_gru_seq_length")); }

}  // namespace
}  // namespace tosakit::onnxtest

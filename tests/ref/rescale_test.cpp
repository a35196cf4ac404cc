// RESCALE (spec 2.13.2). Expected values are hand calculations of apply_scale_32 / apply_scale_16:
//   apply_scale_32(v, m, s) = (v * m + (1 << (s - 1)) [+-(1 << 30) for DOUBLE_ROUND, s > 31]) >> s
//   apply_scale_16(v, m, s) = (v * m + (1 << (s - 1))) >> s          (arithmetic shift: floors)
// then + output_zp and clipped to out_t.
#include "ref_test_util.h"

namespace tosakit::testing {
namespace {

using Runner = OpRunner;

struct Rescale {
  Tensor input;
  DType outType;
  std::vector<int64_t> multiplier{1 << 30};
  std::vector<int64_t> shift{30};
  int64_t inputZp = 0, outputZp = 0;
  bool scale32 = true;
  const char* rounding = "SINGLE_ROUND";
  bool perChannel = false, inputUnsigned = false, outputUnsigned = false;
  DType multiplierType() const { return scale32 ? DType::I32 : DType::I16; }

  OpRun run(Runner runner = kValidatedPath) const {
    int64_t nc = int64_t(multiplier.size());
    return runner(
        "tosa.rescale",
        {Arg(input), Const(Tensor::fromInts(multiplierType(), {nc}, multiplier)),
         Const(Tensor::fromInts(DType::I8, {int64_t(shift.size())}, shift)),
         Const(Tensor::fromInts(input.dtype(), {1}, {inputZp})), Const(Tensor::fromInts(outType, {1}, {outputZp}))},
        {TT(outType, input.shape())},
        {{"scale32", ir::Attribute::boolean(scale32)},
         {"rounding_mode", ir::Attribute::enumCase(rounding)},
         {"per_channel", ir::Attribute::boolean(perChannel)},
         {"input_unsigned", ir::Attribute::boolean(inputUnsigned)},
         {"output_unsigned", ir::Attribute::boolean(outputUnsigned)}},
        ir::TargetEnv::all());
  }
};

Tensor ints(DType t, std::vector<int64_t> v) { return Tensor::fromInts(t, {int64_t(v.size())}, v); }

std::vector<int64_t> runOk(const Rescale& r) {
  OpRun o = r.run();
  EXPECT_TRUE(o.status.isOk()) << o.status.toString();
  return o.status.isOk() ? o.outputs[0].toInts() : std::vector<int64_t>{};
}

// ---- rows of Supported Data Types ----

TEST(RescaleTest, Int8ToInt8HalfScale) {
  // m = 2^30, s = 31 (x0.5): (100 * 1073741824 + 2^30) >> 31 = (101 * 2^30) >> 31 = floor(50.5) = 50
  //                          (-100 * 2^30 + 2^30) >> 31 = floor(-49.5) = -50;  (0 + 2^30) >> 31 = 0
  Rescale r{ints(DType::I8, {100, -100, 0}), DType::I8};
  r.shift = {31};
  EXPECT_EQ(runOk(r), (std::vector<int64_t>{50, -50, 0}));
}

TEST(RescaleTest, Int8ZeroPointsAndClip) {
  // value = 7 - (-3) = 10; (10 * 2^30 + 2^29) >> 30 = 10; + output_zp 5 = 15
  // value = 127 + 3 = 130 -> 130 + 5 = 135 -> clipped to 127;  value = -128 + 3 = -125 -> -120
  Rescale r{ints(DType::I8, {7, 127, -128}), DType::I8};
  r.inputZp = -3;
  r.outputZp = 5;
  EXPECT_EQ(runOk(r), (std::vector<int64_t>{15, 127, -120}));
}

TEST(RescaleTest, Int8ToInt16AndInt32) {
  // scale 1 (m = 2^30, s = 30): value = -128 - 1 = -129
  Rescale r16{ints(DType::I8, {-128, 127}), DType::I16};
  r16.inputZp = 1;
  EXPECT_EQ(runOk(r16), (std::vector<int64_t>{-129, 126}));
  // scale 4 (m = 2^30, s = 28): 127 * 4 = 508, -128 * 4 = -512
  Rescale r32{ints(DType::I8, {127, -128}), DType::I32};
  r32.shift = {28};
  EXPECT_EQ(runOk(r32), (std::vector<int64_t>{508, -512}));
}

TEST(RescaleTest, Int16Rows) {
  // i16 -> i8, scale 1/256 (s = 38): (1000 * 2^30 + 2^37) >> 38 = floor((1000 + 128) / 256) = 4
  Rescale r8{ints(DType::I16, {1000, -32768}), DType::I8};
  r8.shift = {38};
  // -32768: floor((-32768 + 128) / 256) = floor(-127.5) = -128
  EXPECT_EQ(runOk(r8), (std::vector<int64_t>{4, -128}));
  // i16 -> i16, 16-bit multiplier: m = 2^14, s = 15 (x0.5): (1001 * 16384 + 16384) >> 15 = 1002 / 2 = 501;
  // (-32768 * 16384 + 16384) >> 15 = floor(-32767 / 2) = -16384
  Rescale r16{ints(DType::I16, {1001, -32768}), DType::I16};
  r16.scale32 = false;
  r16.multiplier = {1 << 14};
  r16.shift = {15};
  EXPECT_EQ(runOk(r16), (std::vector<int64_t>{501, -16384}));
  // i16 -> i32, scale 2 (m = 2^30, s = 29): 32767 * 2 = 65534
  Rescale r32{ints(DType::I16, {32767}), DType::I32};
  r32.shift = {29};
  EXPECT_EQ(runOk(r32), (std::vector<int64_t>{65534}));
}

TEST(RescaleTest, Int32Rows) {
  // i32 -> i32, scale 2 (s = 29): (1000 * 2^30 + 2^28) >> 29 = 2000
  Rescale r32{ints(DType::I32, {1000}), DType::I32};
  r32.shift = {29};
  EXPECT_EQ(runOk(r32), (std::vector<int64_t>{2000}));
  // i32 -> i16, scale 1: 40000 clips to 32767, -40000 to -32768
  Rescale r16{ints(DType::I32, {40000, -40000, 123}), DType::I16};
  EXPECT_EQ(runOk(r16), (std::vector<int64_t>{32767, -32768, 123}));
  // i32 -> i8, scale 1/16 (s = 34): (1000 * 2^30 + 2^33) >> 34 = floor((1000 + 8) / 16) = 63
  Rescale r8{ints(DType::I32, {1000}), DType::I8};
  r8.shift = {34};
  EXPECT_EQ(runOk(r8), (std::vector<int64_t>{63}));
}

TEST(RescaleTest, Int48Rows) {
  // i48 needs the 16-bit multiplier. m = 1, s = 20: (2^40 + 2^19) >> 20 = floor(2^20 + 0.5) = 1048576
  Rescale r32{ints(DType::I48, {int64_t(1) << 40}), DType::I32};
  r32.scale32 = false;
  r32.multiplier = {1};
  r32.shift = {20};
  EXPECT_EQ(runOk(r32), (std::vector<int64_t>{1048576}));
  // i48 -> i16: m = 2^14, s = 24 (x 2^-10): (-1024000 * 2^14 + 2^23) >> 24 = floor(-1000 + 0.5) = -1000
  Rescale r16{ints(DType::I48, {-1024000}), DType::I16};
  r16.scale32 = false;
  r16.multiplier = {1 << 14};
  r16.shift = {24};
  EXPECT_EQ(runOk(r16), (std::vector<int64_t>{-1000}));
  // i48 -> i8: same scale, 200 * 1024 = 204800 -> 200 -> clipped to 127
  Rescale r8{ints(DType::I48, {204800}), DType::I8};
  r8.scale32 = false;
  r8.multiplier = {1 << 14};
  r8.shift = {24};
  EXPECT_EQ(runOk(r8), (std::vector<int64_t>{127}));
}

// ---- rounding modes ----

TEST(RescaleTest, DoubleRoundDiffersFromSingleRound) {
  // m = 2^30, s = 33 (x1/8), value 11 (exact 1.375):
  //   SINGLE:  (11 * 2^30 + 2^32) >> 33 = floor((11 + 4) / 8) = 1
  //   DOUBLE:  round += 2^30 (s > 31, value >= 0): floor((11 + 4 + 1) / 8) = 2
  //   value -13 DOUBLE: round -= 2^30: floor((-13 + 4 - 1) / 8) = floor(-1.25) = -2
  Rescale single{ints(DType::I32, {11}), DType::I32};
  single.shift = {33};
  EXPECT_EQ(runOk(single), (std::vector<int64_t>{1}));
  Rescale dbl{ints(DType::I32, {11, -13}), DType::I32};
  dbl.shift = {33};
  dbl.rounding = "DOUBLE_ROUND";
  EXPECT_EQ(runOk(dbl), (std::vector<int64_t>{2, -2}));
}

TEST(RescaleTest, InexactRoundMeetsTheBound) {
  // out_ref = 11 / 8 = 1.375; err_bnd = 0.5 + 3 * 1.375 * 2^-24 ~ 0.5: only 1 is within (2 is 0.625 away).
  Rescale r{ints(DType::I32, {11}), DType::I32};
  r.shift = {33};
  r.rounding = "INEXACT_ROUND";
  EXPECT_EQ(runOk(r), (std::vector<int64_t>{1}));
}

TEST(RescaleTest, PerChannel) {
  // NC = shape[1] = 2: channel 0 scale 1 (s = 30), channel 1 scale 0.5 (s = 31):
  //   [10, (10 * 2^30 + 2^30) >> 31 = floor(5.5) = 5, 20, floor(10.5) = 10]
  Rescale r{Tensor::fromInts(DType::I8, {2, 2}, {10, 10, 20, 20}), DType::I8};
  r.perChannel = true;
  r.multiplier = {1 << 30, 1 << 30};
  r.shift = {30, 31};
  EXPECT_EQ(runOk(r), (std::vector<int64_t>{10, 5, 20, 10}));
}

// ---- unsigned input / output ----

TEST(RescaleTest, UnsignedInt8Input) {
  // Bits 0xC8 read unsigned = 200, zero point 0x80 = 128: value = 72 -> i16 72. 0xFF = 255 -> 127.
  Rescale r{ints(DType::I8, {-56, -1}), DType::I16};
  r.inputUnsigned = true;
  r.inputZp = -128;  // stored bits 0x80 (= 128 unsigned)
  EXPECT_EQ(runOk(r), (std::vector<int64_t>{72, 127}));
}

TEST(RescaleTest, UnsignedInt16InputZeroPoint32768) {
  // 0xFFFF = 65535 - 32768 = 32767; x0.5: (32767 * 2^30 + 2^30) >> 31 = 16384. 0 - 32768 = -32768 -> -16384
  Rescale r{ints(DType::I16, {-1, 0}), DType::I16};
  r.inputUnsigned = true;
  r.inputZp = 32768;  // stored as i16 bits 0x8000
  r.shift = {31};
  EXPECT_EQ(runOk(r), (std::vector<int64_t>{16384, -16384}));
}

TEST(RescaleTest, UnsignedInt8Output) {
  // clip_u to [0, 255]: 200 -> 200 (stored 0xC8, reads back as i8 -56); 300 -> 255 (0xFF = -1); -5 -> 0
  Rescale r{ints(DType::I16, {200, 300, -5}), DType::I8};
  r.outputUnsigned = true;
  EXPECT_EQ(runOk(r), (std::vector<int64_t>{-56, -1, 0}));
}

TEST(RescaleTest, UnsignedInt16OutputZeroPoint32768) {
  // -100 + 32768 = 32668 (stored as i16 32668); 127 + 32768 = 32895 = 0x807F, reads back as 32895 - 65536 = -32641
  Rescale r{ints(DType::I8, {-100, 127}), DType::I16};
  r.outputUnsigned = true;
  r.outputZp = 32768;
  EXPECT_EQ(runOk(r), (std::vector<int64_t>{32668, -32641}));
}

// ---- ERROR_IF, one test each; REQUIREs. Each runs through Session (static validation, then kernels) and on
// the reference backend directly (the kernel's own checks). ----

class RescaleErrorTest : public ::testing::TestWithParam<Runner> {};
INSTANTIATE_TEST_SUITE_P(ValidatedAndKernel, RescaleErrorTest, ::testing::Values(kValidatedPath, kKernelPath));

TEST_P(RescaleErrorTest, NonZeroInputZeroPointForNonInt8IsError) {
  // ERROR_IF(!is_same<in_t,i8_t>() && (!is_same<in_t,i16_t>() || input_unsigned == false) && input_zp != 0)
  Rescale r{ints(DType::I16, {1}), DType::I16};
  r.inputZp = 5;
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, NonZeroOutputZeroPointForNonInt8IsError) {
  Rescale r{ints(DType::I8, {1}), DType::I32};
  r.outputZp = 1;
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, Uint16InputZeroPointNot0Or32768IsError) {
  Rescale r{ints(DType::I16, {1}), DType::I16};
  r.inputUnsigned = true;
  r.inputZp = 100;
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, Uint16OutputZeroPointNot0Or32768IsError) {
  Rescale r{ints(DType::I8, {1}), DType::I16};
  r.outputUnsigned = true;
  r.outputZp = 100;
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, Scale32WithInt48IsError) {
  // ERROR_IF(scale32 && is_same<in_t,i48_t>())
  Rescale r{ints(DType::I48, {1}), DType::I32};
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, DoubleRoundWithScale16IsError) {
  // ERROR_IF(!scale32 && (rounding_mode == DOUBLE_ROUND))
  Rescale r{ints(DType::I8, {1}), DType::I8};
  r.scale32 = false;
  r.multiplier = {1 << 14};
  r.shift = {14};
  r.rounding = "DOUBLE_ROUND";
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, UnsignedInputAndOutputIsError) {
  Rescale r{ints(DType::I8, {1}), DType::I16};
  r.inputUnsigned = r.outputUnsigned = true;
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, Int32OutputWithUnsignedInputIsError) {
  Rescale r{ints(DType::I16, {1}), DType::I32};
  r.inputUnsigned = true;
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, Int32InputWithUnsignedOutputIsError) {
  Rescale r{ints(DType::I32, {1}), DType::I16};
  r.outputUnsigned = true;
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, Int48InputWithUnsignedOutputIsError) {
  Rescale r{ints(DType::I48, {1}), DType::I16};
  r.scale32 = false;
  r.multiplier = {1 << 14};
  r.shift = {14};
  r.outputUnsigned = true;
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

// Not in the 1.0 pseudocode, but its evident intent (unsigned data is 8 or 16 bits) and what Arm's reference
// model enforces: i32/i48 data marked unsigned is an error.
TEST_P(RescaleErrorTest, UnsignedInt32OrInt48DataIsError) {
  Rescale in32{ints(DType::I32, {1}), DType::I16};
  in32.inputUnsigned = true;
  EXPECT_SPEC_ERROR(in32.run(GetParam()));
  Rescale out32{ints(DType::I16, {1}), DType::I32};
  out32.outputUnsigned = true;
  EXPECT_SPEC_ERROR(out32.run(GetParam()));
  Rescale in48{ints(DType::I48, {1}), DType::I16};
  in48.scale32 = false;
  in48.multiplier = {1 << 14};
  in48.shift = {14};
  in48.inputUnsigned = true;
  EXPECT_SPEC_ERROR(in48.run(GetParam()));
}

TEST_P(RescaleErrorTest, PerChannelOnRank0IsError) {
  // ERROR_IF(per_channel && rank(input) < 1)
  Rescale r{Tensor::fromInts(DType::I16, {}, {1}), DType::I32};
  r.perChannel = true;
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, TypesOutsideTheTableAreErrors) {
  Rescale f{Tensor::fromDoubles(DType::FP16, {1}, {1}), DType::I16};
  EXPECT_SPEC_ERROR(f.run(GetParam()));
  Rescale b{ints(DType::I8, {1}), DType::Bool};
  EXPECT_SPEC_ERROR(b.run(GetParam()));
}

TEST_P(RescaleErrorTest, MultiplierCountMustBeNC) {
  // per_channel: NC = 3, but two multipliers and shifts given.
  Rescale r{Tensor::fromInts(DType::I8, {1, 3}, {1, 2, 3}), DType::I8};
  r.perChannel = true;
  r.multiplier = {1 << 30, 1 << 30};
  r.shift = {30, 30};
  EXPECT_SPEC_ERROR(r.run(GetParam()));
}

// ---- REQUIRE (unpredictable) ----

TEST_P(RescaleErrorTest, ShiftBelow2IsUnpredictable) {
  // apply_scale_32: REQUIRE(2 <= shift && shift <= 62)
  Rescale r{ints(DType::I8, {1}), DType::I8};
  r.shift = {1};
  EXPECT_UNPREDICTABLE(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, NegativeMultiplierIsUnpredictable) {
  Rescale r{ints(DType::I8, {1}), DType::I8};
  r.multiplier = {-5};
  EXPECT_UNPREDICTABLE(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, ValueOutsideShiftRangeIsUnpredictable) {
  // REQUIRE(value >= (-1 << (shift - 1)) && value < (1 << (shift - 1))): s = 30 allows |value| < 2^29
  Rescale r{ints(DType::I32, {int64_t(1) << 29}), DType::I32};
  EXPECT_UNPREDICTABLE(r.run(GetParam()));
}

TEST_P(RescaleErrorTest, Scale16ResultBeyondInt32IsUnpredictable) {
  // apply_scale_16: (2^46 * 16384 + 2^13) >> 14 = 2^46 > maximum<int32_t>
  Rescale r{ints(DType::I48, {int64_t(1) << 46}), DType::I32};
  r.scale32 = false;
  r.multiplier = {1 << 14};
  r.shift = {14};
  EXPECT_UNPREDICTABLE(r.run(GetParam()));
}

}  // namespace
}  // namespace tosakit::testing

// Overflow-safe sizes and the memory budget (src/core/size_budget.h). Expected values are hand calculations.
#include "core/size_budget.h"

#include <gtest/gtest.h>

namespace tosakit {
namespace {

struct BudgetGuard {
  ~BudgetGuard() { setMemoryBudget(0); }
};

TEST(SizeBudget, NumElementsIsTheProduct) {
  EXPECT_EQ(*checkedNumElements({}), 1);
  EXPECT_EQ(*checkedNumElements({2, 3, 4}), 24);
  EXPECT_EQ(*checkedNumElements({100000, 100000, 100}), 1000000000000LL);  // 1e5 * 1e5 * 1e2
}

TEST(SizeBudget, ZeroDimensionWinsOverOverflow) {
  // 2^62 * 2^62 overflows, but a zero dimension anywhere makes the tensor empty.
  EXPECT_EQ(*checkedNumElements({int64_t(1) << 62, int64_t(1) << 62, 0}), 0);
}

TEST(SizeBudget, OverflowAndNegativeAreInvalid) {
  auto r = checkedNumElements({int64_t(1) << 32, int64_t(1) << 32});  // 2^64 > INT64_MAX
  ASSERT_FALSE(r.isOk());
  EXPECT_EQ(r.status().code(), StatusCode::InvalidArgument);
  EXPECT_FALSE(checkedNumElements({3, -1}).isOk());
  EXPECT_FALSE(checkedNumElements({0, -1}).isOk());
  // 2^61 elements fit; 2^61 fp32 elements are 2^63 bytes, which does not.
  EXPECT_TRUE(checkedNumElements({int64_t(1) << 61}).isOk());
  EXPECT_FALSE(checkedByteSize(DType::FP32, {int64_t(1) << 61}).isOk());
  EXPECT_EQ(*checkedByteSize(DType::FP16, {3, 5}), 30);
}

TEST(SizeBudget, AllocationOverTheBudgetNamesWhatAndShape) {
  BudgetGuard guard;
  setMemoryBudget(1 << 20);
  EXPECT_EQ(memoryBudget(), 1 << 20);
  EXPECT_TRUE(checkAllocation(DType::FP32, {512, 512}, "x").isOk());  // exactly 1 MiB
  Status s = checkAllocation(DType::FP32, {512, 513}, "m.mlir: tosa.const");
  ASSERT_FALSE(s.isOk());
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_NE(s.message().find("m.mlir: tosa.const"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("fp32[512x513]"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("1050624 bytes"), std::string::npos) << s.message();  // 512*513*4
  EXPECT_EQ(s.parameter(), "max_memory");                                          // the CLI says --max-memory
  EXPECT_EQ(s.message().find('\n'), std::string::npos);
}

TEST(SizeBudget, IssueThirteenTensorIsRefusedByDefault) {
  // 100000 x 100000 x 100 fp32 = 4e12 bytes: no machine running these tests has a budget that large.
  Status s = checkAllocation(DType::FP32, {100000, 100000, 100}, "t");
  ASSERT_FALSE(s.isOk());
  EXPECT_NE(s.message().find("4000000000000 bytes"), std::string::npos) << s.message();
}

TEST(SizeBudget, DefaultIsAtLeast64MiBAndZeroRestoresIt) {
  BudgetGuard guard;
  EXPECT_GE(defaultMemoryBudget(), int64_t(64) << 20);
  setMemoryBudget(1000);
  EXPECT_EQ(memoryBudget(), 1000);
  setMemoryBudget(0);
  EXPECT_EQ(memoryBudget(), defaultMemoryBudget());
}

TEST(SizeBudget, ElementsAndBytes) {
  BudgetGuard guard;
  setMemoryBudget(100);
  EXPECT_TRUE(checkAllocationBytes(100, "b").isOk());
  EXPECT_FALSE(checkAllocationBytes(101, "b").isOk());
  EXPECT_FALSE(checkAllocationBytes(-1, "b").isOk());
  EXPECT_TRUE(checkAllocationElements(25, 4, "e").isOk());
  EXPECT_FALSE(checkAllocationElements(26, 4, "e").isOk());
  EXPECT_FALSE(checkAllocationElements(INT64_MAX, 2, "e").isOk());
}

TEST(SizeBudget, ParseByteSize) {
  EXPECT_EQ(*parseByteSize("1048576"), 1048576);
  EXPECT_EQ(*parseByteSize("512K"), 512 * 1024);
  EXPECT_EQ(*parseByteSize("64m"), int64_t(64) << 20);
  EXPECT_EQ(*parseByteSize("2G"), int64_t(2) << 30);
  EXPECT_EQ(*parseByteSize("2GiB"), int64_t(2) << 30);
  EXPECT_EQ(*parseByteSize("3MB"), int64_t(3) << 20);
  EXPECT_EQ(*parseByteSize("1T"), int64_t(1) << 40);
  for (const char* bad : {"", "G", "-1", "0", "1.5G", "12X", "99999999999999999999", "9000000000T"}) {
    EXPECT_FALSE(parseByteSize(bad).isOk()) << bad;
  }
}

TEST(SizeBudget, FormatBytes) {
  EXPECT_EQ(formatBytes(512), "512 bytes");
  EXPECT_EQ(formatBytes(1536), "1.5 KiB");
  EXPECT_EQ(formatBytes(int64_t(3) << 30), "3.0 GiB");
}

}  // namespace
}  // namespace tosakit

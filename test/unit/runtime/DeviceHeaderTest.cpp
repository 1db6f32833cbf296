// The host half of ccopt/device.h, compiled straight into the test.
#include "ccopt/device.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

namespace {

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint16_t f16(float x) { return cc_cvt<cc_f16>(x).bits; }
uint16_t bf16(float x) { return cc_cvt<cc_bf16>(x).bits; }
float fromF16(uint16_t b) { return cc_cvt<float>(cc_f16{b}); }
float fromBf16(uint16_t b) { return cc_cvt<float>(cc_bf16{b}); }

TEST(DeviceHeader, F16ExactCases) {
  EXPECT_EQ(f16(1.0f), 0x3c00);
  EXPECT_EQ(f16(-2.0f), 0xc000);
  EXPECT_EQ(f16(0.0f), 0x0000);
  EXPECT_EQ(f16(-0.0f), 0x8000);
  EXPECT_EQ(f16(65504.0f), 0x7bff);                 // largest finite
  EXPECT_EQ(f16(65519.0f), 0x7bff);                 // below the halfway point
  EXPECT_EQ(f16(65520.0f), 0x7c00);                 // halfway, rounds to even: inf
  EXPECT_EQ(f16(1e6f), 0x7c00);
  EXPECT_EQ(f16(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(f16(-std::numeric_limits<float>::infinity()), 0xfc00);
  // Round to even: 1 + 2^-11 is halfway between 1 and 1 + 2^-10 -> 1 (even);
  // 1 + 3*2^-11 is halfway between 1 + 2^-10 (odd) and 1 + 2^-9 -> 1 + 2^-9.
  EXPECT_EQ(f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(f16(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)), 0x3c01);  // above halfway
  // Subnormals: 2^-24 is the smallest; 2^-25 ties to 0; 3*2^-25 ties to 2*2^-24.
  EXPECT_EQ(f16(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(f16(std::ldexp(1.0f, -25)), 0x0000);
  EXPECT_EQ(f16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(f16(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_EQ(f16(std::ldexp(1.0f, -14)), 0x0400);    // smallest normal
  EXPECT_EQ(f16(std::ldexp(1023.0f, -24)), 0x03ff); // largest subnormal
  EXPECT_EQ(f16(std::ldexp(2047.0f, -25)), 0x0400); // rounds up into the normals
}

TEST(DeviceHeader, F16NaNAndRoundTrip) {
  EXPECT_TRUE(std::isnan(fromF16(f16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(fromF16(f16(bitsToFloat(0x7f800001)))));  // signalling, low payload
  EXPECT_EQ(f16(bitsToFloat(0x7f800001)) & 0x7e00, 0x7e00);
  EXPECT_TRUE(std::isinf(fromF16(0x7c00)));
  EXPECT_EQ(fromF16(0x7bff), 65504.0f);
  EXPECT_EQ(fromF16(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(fromF16(0x8000), 0.0f);
  EXPECT_TRUE(std::signbit(fromF16(0x8000)));
  // Every finite half survives half -> float -> half.
  for (uint32_t b = 0; b < 0x10000; ++b) {
    if ((b & 0x7c00) == 0x7c00 && (b & 0x3ff)) continue;  // NaN payloads may be quietened
    ASSERT_EQ(f16(fromF16(uint16_t(b))), b) << std::hex << b;
  }
}

TEST(DeviceHeader, Bf16) {
  EXPECT_EQ(bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16(-2.0f), 0xc000);
  EXPECT_EQ(bf16(bitsToFloat(0x3f808000)), 0x3f80);  // halfway, even stays
  EXPECT_EQ(bf16(bitsToFloat(0x3f818000)), 0x3f82);  // halfway, odd rounds up
  EXPECT_EQ(bf16(bitsToFloat(0x3f808001)), 0x3f81);  // above halfway
  EXPECT_EQ(bf16(bitsToFloat(0x7f7fffff)), 0x7f80);  // FLT_MAX rounds to inf
  EXPECT_EQ(bf16(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_TRUE(std::isnan(fromBf16(bf16(std::numeric_limits<float>::quiet_NaN()))));
  EXPECT_TRUE(std::isnan(fromBf16(bf16(bitsToFloat(0x7f800001)))));  // not rounded into inf
  for (uint32_t b = 0; b < 0x10000; ++b) {
    if ((b & 0x7f80) == 0x7f80 && (b & 0x7f)) continue;
    ASSERT_EQ(bf16(fromBf16(uint16_t(b))), b) << std::hex << b;
  }
  EXPECT_EQ(cc_cvt<cc_f16>(cc_cvt<cc_bf16>(1.5f)).bits, 0x3e00);
  EXPECT_EQ(cc_cvt<int>(cc_cvt<cc_f16>(-7)), -7);
}

TEST(DeviceHeader, OpsAndParts) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(std::isnan(cc_op_min::apply(nan, 1.0f)));
  EXPECT_TRUE(std::isnan(cc_op_min::apply(1.0f, nan)));
  EXPECT_TRUE(std::isnan(cc_op_max::apply(nan, 1.0f)));
  EXPECT_TRUE(std::isnan(cc_op_max::apply(1.0f, nan)));
  EXPECT_EQ(cc_op_min::apply(3, -4), -4);
  EXPECT_EQ(cc_op_max::apply(3, -4), 3);
  EXPECT_EQ(cc_op_prod::apply(3.0, 0.5), 1.5);
  EXPECT_EQ(cc_part_begin(10, 3, 0), 0);
  EXPECT_EQ(cc_part_begin(10, 3, 1), 3);
  EXPECT_EQ(cc_part_begin(10, 3, 2), 6);
  EXPECT_EQ(cc_part_begin(10, 3, 3), 10);
  EXPECT_EQ(cc_part_begin(1, 8, 7), 0);
  EXPECT_EQ(cc_part_begin(1, 8, 8), 1);
  EXPECT_EQ(cc_sync_words(8, 2), 1 + 3 * 2 * 8);
  static_assert(std::is_same<cc_acc_t<cc_f16>, float>::value);
  static_assert(std::is_same<cc_acc_t<cc_bf16>, float>::value);
  static_assert(std::is_same<cc_acc_t<int>, int>::value);
}

TEST(DeviceHeader, MoversOnHost) {
  float a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50}, d[5] = {}, d2[5] = {};
  cc_reduce<cc_op_sum>(d, d2, a, b, 5, 1);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(d[i], a[i] + b[i]);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(d2[i], a[i] + b[i]);
  int avg[4] = {};
  const int x[4] = {1, 3, 5, -7}, y[4] = {1, 3, 5, -7};
  cc_reduce<cc_op_sum>(avg, nullptr, x, y, 4, 2);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(avg[i], x[i]);
  cc_f16 h[3];
  const double src[3] = {0.5, -1.0, 65504.0};
  cc_copy(h, src, 3);
  EXPECT_EQ(h[0].bits, 0x3800);
  EXPECT_EQ(h[1].bits, 0xbc00);
  EXPECT_EQ(h[2].bits, 0x7bff);
  cc_scale(h, 3, 2);
  EXPECT_EQ(cc_cvt<float>(h[0]), 0.25f);
  EXPECT_EQ(cc_cvt<float>(h[2]), 32752.0f);
  unsigned char u[2] = {200, 100};
  const unsigned char v[2] = {100, 100};
  cc_reduce<cc_op_sum>(u, nullptr, (const unsigned char*)u, v, 2, 1);
  EXPECT_EQ(u[0], 44);  // wraps modulo 256
  EXPECT_EQ(u[1], 200);
}

}  // namespace

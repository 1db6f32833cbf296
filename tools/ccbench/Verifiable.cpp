#include "tools/ccbench/Verifiable.h"

#include "ccopt/device.h"  // host half: cc_f16, cc_bf16, cc_cvt

#include <algorithm>

namespace ccopt::bench {
namespace {

bool isUnsigned(rt::DType t) { return t == rt::DType::U8 || t == rt::DType::U32 || t == rt::DType::U64; }
bool isInteger(rt::DType t) {
  return t != rt::DType::F32 && t != rt::DType::F64 && t != rt::DType::F16 && t != rt::DType::BF16;
}

// Small enough that 8 ranks' sums stay within i8 and exact in bf16 (8-bit
// mantissa); products are powers of two up to 2^ranks.
double inputValue(const Shape& s, int rank, int64_t i) {
  if (s.redop == "prod") return (i + rank) % 3 == 0 ? 2 : 1;
  const int64_t k = (i * 7 + rank * 13) % 9;
  return isUnsigned(s.type) ? double(k) : double(k - 4);
}

double reduce(const Shape& s, int64_t index) {
  double acc = inputValue(s, 0, index);
  for (int r = 1; r < s.ranks; ++r) {
    const double x = inputValue(s, r, index);
    if (s.redop == "prod") acc *= x;
    else if (s.redop == "min") acc = std::min(acc, x);
    else if (s.redop == "max") acc = std::max(acc, x);
    else acc += x;
  }
  if (s.redop == "avg") {
    // The kernels divide once, in the element's accumulation type.
    if (isInteger(s.type)) return double((long long)acc / s.ranks);
    if (s.type == rt::DType::F64) return acc / s.ranks;
    return double(float(acc) / float(s.ranks));
  }
  return acc;
}

template <class T> void fill(const Shape& s, int rank, void* data) {
  T* p = static_cast<T*>(data);
  for (int64_t i = 0; i < s.inputCount; ++i) p[i] = cc_cvt<T>(inputValue(s, rank, i));
}

template <class T> int64_t wrong(const Shape& s, int rank, const void* data) {
  const T* p = static_cast<const T*>(data);
  int64_t bad = 0;
  for (int64_t e = 0; e < s.outputCount; ++e) {
    // The expected value converted to T exactly as the kernel's result was.
    const T want = cc_cvt<T>(expectedOutput(s, rank, e));
    bad += cc_cvt<double>(p[e]) != cc_cvt<double>(want);
  }
  return bad;
}

template <template <class> class F, class... A> auto dispatch(rt::DType t, A&&... a) {
  switch (t) {
    case rt::DType::F64: return F<double>::run(a...);
    case rt::DType::F32: return F<float>::run(a...);
    case rt::DType::F16: return F<cc_f16>::run(a...);
    case rt::DType::BF16: return F<cc_bf16>::run(a...);
    case rt::DType::I64: return F<long long>::run(a...);
    case rt::DType::I32: return F<int>::run(a...);
    case rt::DType::I8: return F<signed char>::run(a...);
    case rt::DType::U64: return F<unsigned long long>::run(a...);
    case rt::DType::U32: return F<unsigned>::run(a...);
    case rt::DType::U8: return F<unsigned char>::run(a...);
  }
  return F<float>::run(a...);
}
template <class T> struct Fill {
  static int run(const Shape& s, int rank, void* data) { return fill<T>(s, rank, data), 0; }
};
template <class T> struct Wrong {
  static int64_t run(const Shape& s, int rank, const void* data) { return wrong<T>(s, rank, data); }
};

}  // namespace

void fillInput(const Shape& s, int rank, void* data) { dispatch<Fill>(s.type, s, rank, data); }

double expectedOutput(const Shape& s, int rank, int64_t e) {
  if (s.collective == "all_reduce") return reduce(s, e);
  if (s.collective == "reduce_scatter") return reduce(s, int64_t(rank) * s.outputCount + e);
  if (s.collective == "all_gather") return inputValue(s, int(e / s.inputCount), e % s.inputCount);
  return inputValue(s, s.root, e);  // broadcast
}

int64_t countWrong(const Shape& s, int rank, const void* output) { return dispatch<Wrong>(s.type, s, rank, output); }

}  // namespace ccopt::bench

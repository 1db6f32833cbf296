// nccl-tests' "verifiable" idea for ccbench: every input element is a small
// integer chosen from (rank, index), so every result is an exact small
// integer in every type (f16 and bf16 included) whatever the reduction order,
// and every output element is checked against the exactly known value.
#pragma once

#include "runtime/ccrt/Schedule.h"

#include <cstdint>
#include <string>

namespace ccopt::bench {

struct Shape {
  std::string collective;  // all_reduce, reduce_scatter, all_gather, broadcast
  std::string redop;       // sum, prod, min, max, avg, none
  int ranks = 1;
  int64_t inputCount = 0, outputCount = 0;
  int root = 0;
  rt::DType type = rt::DType::F32;
};

/// Writes rank `rank`'s input (shape.inputCount elements of shape.type).
void fillInput(const Shape& shape, int rank, void* data);

/// Output element `e` of rank `rank` as it must be.
double expectedOutput(const Shape& shape, int rank, int64_t e);

/// Elements of rank `rank`'s output (host copy) that differ from expectedOutput.
int64_t countWrong(const Shape& shape, int rank, const void* output);

}  // namespace ccopt::bench

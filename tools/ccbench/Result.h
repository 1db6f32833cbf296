// One measured cell of a ccbench row.
#pragma once

#include <cstdint>

namespace ccopt::bench {

struct Result {
  bool ran = false;
  double us = 0;       // per iteration
  int64_t wrong = 0;   // elements that differ from the known result
};

}  // namespace ccopt::bench

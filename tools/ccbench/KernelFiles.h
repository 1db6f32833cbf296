// Where ccbench finds the kernel of one sweep point: a file written by
// scripts/emit-kernels (`ccopt --emit=cuda` + metadata), or, with --ccopt, one
// emitted on the spot by running the ccopt binary.
#pragma once

#include "runtime/ccrt/Schedule.h"
#include "tools/ccbench/Verifiable.h"

namespace ccopt::bench {

/// <collective>-<redop>-<type>-<ranks>r-<count>.cu, count = elements of the
/// larger buffer.
std::string kernelFileName(const Shape& shape);

/// Loads the kernel for `shape` from `dir`; when missing and `ccopt` is set,
/// emits it there first with `ccopt --emit=cuda [--topo topo]`.
rt::Status loadKernel(const Shape& shape, const std::string& dir, const std::string& ccopt, const std::string& topo,
                      rt::KernelLibrary& out);

}  // namespace ccopt::bench

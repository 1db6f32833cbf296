// A compiled schedule as the runtime sees it: the emitted kernel source and,
// per kernel, the metadata line the emitter writes above it
// (`// ccopt-schedule kernel=... ranks=... element=f32 ...`). This is all a
// GPU machine without MLIR needs to run ccopt's output.
#pragma once

#include "runtime/ccrt/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ccopt::rt {

/// Buffer element types, named as in MLIR (f32, bf16, ui8, ...).
enum class DType { F64, F32, F16, BF16, I64, I32, I8, U64, U32, U8 };

bool parseDType(const std::string& name, DType& out);
const char* dtypeName(DType type);
size_t dtypeBytes(DType type);

struct Schedule {
  std::string kernel;      // the extern "C" kernel name
  std::string collective;  // all_reduce, reduce_scatter, all_gather, broadcast, reduce, all_to_all, send_recv, barrier
  std::string redop;       // sum, prod, min, max, avg, or none
  std::string algorithm;   // ring, tree, chain, ...
  int ranks = 0;
  int channels = 0;
  DType element = DType::F32;
  DType wire = DType::F32;  // scratch element type
  int64_t inputCount = 0, outputCount = 0, scratchCount = 0;
  bool inPlace = false;
  int root = -1;               // broadcast/reduce root, else -1
  std::vector<int> rankMap;    // schedule rank i runs on world rank rankMap[i]; empty: identity
  std::string protocol = "simple";  // simple | ll | ll128 (optional key; older files have none)
  int64_t mailboxBytes = 0;    // LL/LL128 mailbox after the counters of every sync area
  bool multicast = false;      // input and output must be multicast-bound (NVLS steps)
  int64_t multicastGroup = 0;  // ranks per multicast object, in blocks of consecutive ranks (0: all)

  size_t inputBytes() const { return size_t(inputCount) * dtypeBytes(element); }
  size_t outputBytes() const { return size_t(outputCount) * dtypeBytes(element); }
  size_t scratchBytes() const { return size_t(scratchCount) * dtypeBytes(wire); }
  /// A rank's sync area: the counters (cc_sync_words), then the mailbox
  /// (cc_sync_bytes: from a 128-byte boundary).
  size_t syncBytes() const;
};

/// Emitted source with the schedules of its kernels, in source order.
struct KernelLibrary {
  std::string source;
  std::vector<Schedule> schedules;

  /// The schedule of kernel `name`, or null.
  const Schedule* find(const std::string& kernel) const;
};

/// Reads every `// ccopt-schedule` line of `source`. An unknown key is
/// ignored (later emitters may add some); a missing or malformed one is an
/// error naming the line.
Status parseKernelLibrary(std::string source, KernelLibrary& out);

/// parseKernelLibrary of the file at `path`.
Status loadKernelLibrary(const std::string& path, KernelLibrary& out);

}  // namespace ccopt::rt

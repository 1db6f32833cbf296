// Host backend: runs emitted kernel source on the CPU. The source is compiled
// by the system C++ compiler into a shared object against the host half of
// ccopt/device.h, and every (rank, channel) block runs on its own thread.
#pragma once

#include "ccopt/device.h"

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace ccopt::rt {

/// Host signature of a CC_KERNEL: (args, block x = channel, block y = rank - rank_base).
using KernelFn = void (*)(const cc_args*, int, int);

/// A kernel source compiled for the host and loaded.
class HostModule {
public:
  /// Compiles `cudaSource` with $CXX (or c++) into a shared object and loads
  /// it. Returns null on failure with `error` holding the compiler output.
  static std::unique_ptr<HostModule> compile(const std::string& cudaSource, std::string& error);

  /// The kernel `name` (an extern "C" CC_KERNEL), or null with `error` set.
  KernelFn kernel(const std::string& name, std::string& error) const;

  ~HostModule();
  HostModule(const HostModule&) = delete;
  HostModule& operator=(const HostModule&) = delete;

private:
  explicit HostModule(void* handle) : handle_(handle) {}
  void* handle_;
};

/// Host memory for one world: per-rank buffers and sync areas, the abort flag
/// and the error word, and the epoch counter.
class HostWorld {
public:
  /// Buffers are 64-byte aligned and zeroed. With `inPlace`, each rank's
  /// OUTPUT buffer is its INPUT buffer (of max(inputBytes, outputBytes)).
  /// `mailboxBytes`: the LL/LL128 mailbox that follows the counters in every sync
  /// area (the schedule's `mailbox=`; 0 for Simple).
  HostWorld(int nranks, int nchannels, size_t inputBytes, size_t outputBytes, size_t scratchBytes,
            bool inPlace = false, size_t mailboxBytes = 0);
  ~HostWorld();
  HostWorld(const HostWorld&) = delete;
  HostWorld& operator=(const HostWorld&) = delete;

  int nranks() const { return nranks_; }
  int nchannels() const { return nchannels_; }
  cc_u64 epoch() const { return epoch_; }
  size_t bufferBytes(int kind) const { return bytes_[kind]; }

  /// Base of buffer `kind` (CC_BUF_*) of `rank`.
  void* buffer(int rank, int kind) const { return bufPtrs_[size_t(rank) * CC_NUM_BUFS + kind]; }
  template <class T> T* buffer(int rank, int kind) const { return static_cast<T*>(buffer(rank, kind)); }
  /// Points buffer `kind` of `rank` at caller memory instead of its own
  /// (which must hold bufferBytes(kind) and outlive the launches).
  void bind(int rank, int kind, void* data) { bufPtrs_[size_t(rank) * CC_NUM_BUFS + kind] = data; }
  /// The sync area of `rank` (cc_sync_words(nranks, nchannels) words, then
  /// the mailbox from cc_mailbox_begin).
  const cc_u64* syncArea(int rank) const { return syncPtrs_[rank]; }

  /// Runs `fn` once for every (rank, channel), each on its own thread, and
  /// waits for all of them. `timeout` bounds every spin-wait (0: none).
  /// Returns CC_OK or the first error code. After a failed launch the sync
  /// areas are reset before the next one.
  int launch(KernelFn fn, std::chrono::nanoseconds timeout);

  /// Raises the abort flag of the launch in progress (from another thread):
  /// its waits return at once and it returns CC_ERR_ABORTED.
  void requestAbort() { __atomic_store_n(&abort_, 1, __ATOMIC_SEQ_CST); }
  /// The error word of the last (or running) launch: CC_OK or CC_ERR_*.
  int lastError() const { return __atomic_load_n(&error_, __ATOMIC_SEQ_CST); }

private:
  struct Free { void operator()(void* p) const; };
  using Block = std::unique_ptr<void, Free>;
  static Block allocZeroed(size_t bytes);
  void resetSync();

  int nranks_, nchannels_;
  size_t bytes_[CC_NUM_BUFS];
  size_t syncBytes_;
  std::vector<Block> storage_;
  std::vector<void*> bufPtrs_;    // [nranks * CC_NUM_BUFS]
  std::vector<cc_u64*> syncPtrs_; // [nranks]
  int abort_ = 0;
  int error_ = CC_OK;
  cc_u64 epoch_ = 0;
  bool needsReset_ = false;
};

}  // namespace ccopt::rt

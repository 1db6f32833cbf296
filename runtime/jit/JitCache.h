// On-disk cache of NVRTC output: a kernel source compiled once for an
// architecture is loaded from disk on every later run (microseconds instead
// of the ~0.1-3 s of a cold NVRTC compile).
//
// One file per entry, named by a SHA-256 key over everything that decides the
// CUBIN: the source, its program name, the NVRTC options (architecture,
// include paths, extras), the NVRTC version and the content of
// ccopt/device.h. Entries carry a header (magic, format version, key, payload
// size, payload checksum) so a truncated or corrupted file is detected, then
// rebuilt and replaced. Writes go to a unique temp file in the same directory
// and are renamed into place, so any number of processes may fill the same
// entry at once; readers see either no file or a whole one.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ccopt::rt {

struct JitResult {
  bool ok = false;
  bool cacheHit = false;    // the CUBIN came from disk, NVRTC did not run
  std::vector<char> cubin;  // empty unless ok
  std::string log;          // NVRTC's log, then cache notes (entry discarded, not cached: why)
  std::string path;         // the entry read or written; empty when nothing is cached
  double seconds = 0;       // wall time of the whole call
};

class JitCache {
public:
  /// `dir` is created on first store. An empty `dir` disables caching.
  explicit JitCache(std::string dir = defaultDir());

  /// The CUBIN of `source` for sm_<smArch> with nvrtcOptions(smArch,
  /// extraOptions): from the cache when a valid entry exists, else compiled
  /// with NVRTC and stored. Failures (NVRTC errors, an unusable cache
  /// directory) come back in the result, never as an exception or abort; an
  /// unusable directory still compiles, it only does not cache.
  JitResult compile(const std::string& source, const std::string& name, int smArch,
                    const std::vector<std::string>& extraOptions = {}) const;

  /// The entry file compile() uses for these arguments.
  std::string entryPath(const std::string& source, const std::string& name, int smArch,
                        const std::vector<std::string>& extraOptions = {}) const;

  const std::string& dir() const { return dir_; }

  /// $CCOPT_CACHE_DIR, else $XDG_CACHE_HOME/ccopt, else ~/.cache/ccopt;
  /// empty when none of them can be determined.
  static std::string defaultDir();

private:
  std::array<unsigned char, 32> key(const std::string& source, const std::string& name, int smArch,
                                    const std::vector<std::string>& extraOptions) const;
  std::string pathForKey(const std::array<unsigned char, 32>& key, int smArch) const;

  std::string dir_;
  std::string deviceHeaderDigest_;  // of ccopt/device.h, read once: NVRTC includes it
};

/// SHA-256 (FIPS 180-4) of `size` bytes at `data`.
std::array<unsigned char, 32> sha256(const void* data, size_t size);
/// XXH64 (xxHash, seed 0) of `size` bytes at `data`: the entries' payload checksum.
uint64_t xxHash64(const void* data, size_t size);
/// Lower-case hex of a digest.
std::string toHex(const unsigned char* bytes, size_t size);

}  // namespace ccopt::rt

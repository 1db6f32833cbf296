#include "runtime/jit/JitCache.h"

#include "runtime/jit/Nvrtc.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

namespace ccopt::rt {

// ---------------------------------------------------------------------------
// SHA-256 (FIPS 180-4)
// ---------------------------------------------------------------------------
namespace {

constexpr uint32_t kSha256K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void sha256Block(uint32_t h[8], const unsigned char* p) {
  uint32_t w[64];
  for (int i = 0; i < 16; ++i)
    w[i] = uint32_t(p[4 * i]) << 24 | uint32_t(p[4 * i + 1]) << 16 | uint32_t(p[4 * i + 2]) << 8 |
           uint32_t(p[4 * i + 3]);
  for (int i = 16; i < 64; ++i) {
    const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    const uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kSha256K[i] + w[i];
    const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d; h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

}  // namespace

std::array<unsigned char, 32> sha256(const void* data, size_t size) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* p = static_cast<const unsigned char*>(data);
  size_t left = size;
  for (; left >= 64; left -= 64, p += 64) sha256Block(h, p);
  // Padding: 0x80, zeros, then the bit length big-endian, in one or two blocks.
  unsigned char tail[128] = {};
  if (left) std::memcpy(tail, p, left);
  tail[left] = 0x80;
  const size_t tailSize = left < 56 ? 64 : 128;
  const uint64_t bits = uint64_t(size) * 8;
  for (int i = 0; i < 8; ++i) tail[tailSize - 1 - i] = (unsigned char)(bits >> (8 * i));
  sha256Block(h, tail);
  if (tailSize == 128) sha256Block(h, tail + 64);
  std::array<unsigned char, 32> out;
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 4; ++j) out[4 * i + j] = (unsigned char)(h[i] >> (24 - 8 * j));
  return out;
}

std::string toHex(const unsigned char* bytes, size_t size) {
  static const char digits[] = "0123456789abcdef";
  std::string s(2 * size, '0');
  for (size_t i = 0; i < size; ++i) {
    s[2 * i] = digits[bytes[i] >> 4];
    s[2 * i + 1] = digits[bytes[i] & 15];
  }
  return s;
}

// ---------------------------------------------------------------------------
// XXH64 (xxHash, seed 0): the payload checksum. Not a defence against
// tampering (the key is SHA-256), only against torn or flipped bytes, and
// ~50x faster than this SHA-256 over the few hundred KiB of CUBIN a hit reads.
// ---------------------------------------------------------------------------
namespace {

constexpr uint64_t kP1 = 0x9E3779B185EBCA87ull, kP2 = 0xC2B2AE3D27D4EB4Full, kP3 = 0x165667B19E3779F9ull,
                   kP4 = 0x85EBCA77C2B2AE63ull, kP5 = 0x27D4EB2F165667C5ull;

inline uint64_t rotl64(uint64_t x, int n) { return (x << n) | (x >> (64 - n)); }
inline uint64_t read64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= uint64_t(p[i]) << (8 * i);  // one load on little-endian hosts
  return v;
}
inline uint64_t read32(const unsigned char* p) {
  return uint64_t(p[0]) | uint64_t(p[1]) << 8 | uint64_t(p[2]) << 16 | uint64_t(p[3]) << 24;
}
inline uint64_t xxRound(uint64_t acc, uint64_t input) { return rotl64(acc + input * kP2, 31) * kP1; }
inline uint64_t xxMerge(uint64_t acc, uint64_t v) { return (acc ^ xxRound(0, v)) * kP1 + kP4; }

}  // namespace

uint64_t xxHash64(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  const unsigned char* const end = p + size;
  uint64_t h;
  if (size >= 32) {
    uint64_t v1 = kP1 + kP2, v2 = kP2, v3 = 0, v4 = uint64_t(0) - kP1;
    for (; end - p >= 32; p += 32) {
      v1 = xxRound(v1, read64(p));
      v2 = xxRound(v2, read64(p + 8));
      v3 = xxRound(v3, read64(p + 16));
      v4 = xxRound(v4, read64(p + 24));
    }
    h = rotl64(v1, 1) + rotl64(v2, 7) + rotl64(v3, 12) + rotl64(v4, 18);
    h = xxMerge(xxMerge(xxMerge(xxMerge(h, v1), v2), v3), v4);
  } else {
    h = kP5;
  }
  h += uint64_t(size);
  for (; end - p >= 8; p += 8) h = rotl64(h ^ xxRound(0, read64(p)), 27) * kP1 + kP4;
  if (end - p >= 4) {
    h = rotl64(h ^ (read32(p) * kP1), 23) * kP2 + kP3;
    p += 4;
  }
  for (; p < end; ++p) h = rotl64(h ^ (*p * kP5), 11) * kP1;
  h ^= h >> 33;
  h *= kP2;
  h ^= h >> 29;
  h *= kP3;
  h ^= h >> 32;
  return h;
}

// ---------------------------------------------------------------------------
// Entry format: a fixed little-endian header, then the CUBIN.
//   [0,8)   magic "CCOPTJIT"
//   [8,12)  format version
//   [12,16) header size
//   [16,24) payload size
//   [24,56) key (SHA-256 of the key material; guards against a misplaced file)
//   [56,64) XXH64 of the payload
// ---------------------------------------------------------------------------
namespace {

constexpr char kMagic[8] = {'C', 'C', 'O', 'P', 'T', 'J', 'I', 'T'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kHeaderSize = 64;
using Digest = std::array<unsigned char, 32>;

void putLe(unsigned char* p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
uint64_t getLe(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

std::string errnoText(const std::string& what, int err) { return what + ": " + std::strerror(err); }

// Reads up to `size` bytes at `offset`; fewer only at end of file or on error.
size_t readAt(int fd, void* data, size_t size, off_t offset) {
  size_t done = 0;
  while (done < size) {
    const ssize_t n = ::pread(fd, static_cast<char*>(data) + done, size - done, offset + off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += size_t(n);
  }
  return done;
}

// Reads a whole file. Returns false with `error` (empty when it does not exist).
bool readFile(const std::string& path, std::vector<unsigned char>& bytes, std::string& error) {
  error.clear();
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) error = errnoText("cannot open " + path, errno);
    return false;
  }
  struct stat st;
  const bool ok = ::fstat(fd, &st) == 0;
  if (ok) {
    bytes.resize(size_t(st.st_size));
    bytes.resize(readAt(fd, bytes.data(), bytes.size(), 0));
  } else {
    error = errnoText("cannot stat " + path, errno);
  }
  ::close(fd);
  return ok;
}

enum class Entry { Missing, Valid, Invalid };

// Reads the entry for `key` at `path`: the header first, then the payload
// straight into `cubin` (one buffer: a hit should cost little more than the read).
// Invalid comes with `why`.
Entry readEntry(const std::string& path, const Digest& key, std::vector<char>& cubin, std::string& why) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return Entry::Missing;
    why = errnoText("cannot open", errno);
    return Entry::Invalid;
  }
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    why = errnoText("cannot stat", errno);
    ::close(fd);
    return Entry::Invalid;
  }
  auto invalid = [&](std::string what) {
    why = std::move(what);
    cubin.clear();
    ::close(fd);
    return Entry::Invalid;
  };
  unsigned char h[kHeaderSize];
  const size_t fileSize = size_t(st.st_size);
  if (fileSize < kHeaderSize || readAt(fd, h, kHeaderSize, 0) != kHeaderSize)
    return invalid("truncated header (" + std::to_string(fileSize) + " bytes)");
  if (std::memcmp(h, kMagic, sizeof kMagic) != 0) return invalid("bad magic");
  if (getLe(h + 8, 4) != kFormatVersion || getLe(h + 12, 4) != kHeaderSize)
    return invalid("format version " + std::to_string(getLe(h + 8, 4)) + ", expected " +
                   std::to_string(kFormatVersion));
  const uint64_t size = getLe(h + 16, 8);
  if (size != fileSize - kHeaderSize)
    return invalid("payload is " + std::to_string(fileSize - kHeaderSize) + " bytes, header says " +
                   std::to_string(size));
  if (std::memcmp(h + 24, key.data(), key.size()) != 0) return invalid("entry belongs to another key");
  cubin.resize(size_t(size));
  if (readAt(fd, cubin.data(), cubin.size(), off_t(kHeaderSize)) != cubin.size()) return invalid("short read");
  if (getLe(h + 56, 8) != xxHash64(cubin.data(), cubin.size())) return invalid("payload checksum mismatch");
  ::close(fd);
  return Entry::Valid;
}

// A name no other thread or process picks: pid, a per-process counter and
// random bits (pids repeat across containers sharing a cache directory).
std::string uniqueTempName(const std::string& base) {
  static std::atomic<uint64_t> counter{0};
  static const uint64_t salt = [] {
    std::random_device rd;
    return (uint64_t(rd()) << 32) ^ rd();
  }();
  std::ostringstream s;
  s << ".tmp-" << base << '.' << ::getpid() << '.' << counter.fetch_add(1) << '.' << std::hex
    << (salt ^ uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()));
  return s.str();
}

// Writes header + CUBIN to a temp file next to `path` and renames it into
// place: concurrent writers of one key each rename a whole file, the last
// one wins, and all of them wrote the same bytes.
bool storeEntry(const std::string& dir, const std::string& path, const Digest& key, const std::vector<char>& cubin,
                std::string& error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  unsigned char header[kHeaderSize] = {};
  std::memcpy(header, kMagic, sizeof kMagic);
  putLe(header + 8, kFormatVersion, 4);
  putLe(header + 12, kHeaderSize, 4);
  putLe(header + 16, cubin.size(), 8);
  std::memcpy(header + 24, key.data(), key.size());
  putLe(header + 56, xxHash64(cubin.data(), cubin.size()), 8);

  const std::string base = path.substr(path.find_last_of('/') + 1);
  const std::string tmp = dir + "/" + uniqueTempName(base);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = errnoText("cannot create " + tmp, errno);
    return false;
  }
  auto writeAll = [fd](const void* data, size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size) {
      const ssize_t n = ::write(fd, p, size);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      p += n;
      size -= size_t(n);
    }
    return true;
  };
  bool ok = writeAll(header, sizeof header) && writeAll(cubin.data(), cubin.size());
  int err = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  // No fsync: a crash may leave a short or empty entry, which the next read
  // detects and rebuilds; a compile is cheaper than an fsync on every store.
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    error = errnoText("cannot write " + path, err ? err : EIO);
    ::unlink(tmp.c_str());
  }
  return ok;
}

}  // namespace

// ---------------------------------------------------------------------------
// JitCache
// ---------------------------------------------------------------------------

JitCache::JitCache(std::string dir) : dir_(std::move(dir)) {
  while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
  // NVRTC reads device.h from disk at compile time, so an edited header must
  // change every key; hash its content, not its path.
  std::vector<unsigned char> header;
  std::string error;
  if (readFile(deviceHeaderPath(), header, error)) {
    const Digest d = sha256(header.data(), header.size());
    deviceHeaderDigest_ = toHex(d.data(), d.size());
  } else {
    deviceHeaderDigest_ = "unreadable";  // NVRTC will fail too and nothing is stored
  }
}

std::string JitCache::defaultDir() {
  if (const char* d = std::getenv("CCOPT_CACHE_DIR"); d && *d) return d;
  // XDG: a relative $XDG_CACHE_HOME is invalid and must be ignored.
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && x[0] == '/') return std::string(x) + "/ccopt";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/ccopt";
  if (const passwd* pw = ::getpwuid(::getuid()); pw && pw->pw_dir && *pw->pw_dir)
    return std::string(pw->pw_dir) + "/.cache/ccopt";
  return {};
}

std::array<unsigned char, 32> JitCache::key(const std::string& source, const std::string& name, int smArch,
                                            const std::vector<std::string>& extraOptions) const {
  // Length-prefixed fields, so no two different field lists share a byte string.
  std::string material;
  auto field = [&material](const std::string& s) {
    material += std::to_string(s.size());
    material += ':';
    material += s;
  };
  field("ccopt-jit-v" + std::to_string(kFormatVersion));
  field(source);
  field(name);
  field("sm_" + std::to_string(smArch));
  for (const std::string& o : nvrtcOptions(smArch, extraOptions)) field(o);
  field("nvrtc " + nvrtcVersionString());
  field("device.h " + deviceHeaderDigest_);
  return sha256(material.data(), material.size());
}

std::string JitCache::pathForKey(const std::array<unsigned char, 32>& key, int smArch) const {
  return dir_ + "/sm" + std::to_string(smArch) + "-" + toHex(key.data(), key.size()) + ".cubin";
}

std::string JitCache::entryPath(const std::string& source, const std::string& name, int smArch,
                                const std::vector<std::string>& extraOptions) const {
  if (dir_.empty()) return {};
  return pathForKey(key(source, name, smArch, extraOptions), smArch);
}

JitResult JitCache::compile(const std::string& source, const std::string& name, int smArch,
                            const std::vector<std::string>& extraOptions) const {
  const auto start = std::chrono::steady_clock::now();
  JitResult result;
  auto finish = [&]() -> JitResult {
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
  };

  const Digest k = key(source, name, smArch, extraOptions);
  const std::string path = dir_.empty() ? std::string() : pathForKey(k, smArch);
  std::string note;  // cache remarks, appended after NVRTC's log
  if (!path.empty()) {
    std::string why;
    switch (readEntry(path, k, result.cubin, why)) {
      case Entry::Valid:
        result.ok = result.cacheHit = true;
        result.path = path;
        return finish();
      case Entry::Invalid:
        note += "jit cache: discarded " + path + " (" + why + "); rebuilt\n";
        break;
      case Entry::Missing:
        break;
    }
  }

  NvrtcResult compiled = compileWithNvrtc(source, name, smArch, extraOptions);
  result.log = std::move(compiled.log);
  if (!compiled.ok) {
    result.log += note;
    return finish();  // a failed compile is not cached: the next call reports it again
  }
  result.ok = true;
  result.cubin = std::move(compiled.cubin);
  if (path.empty()) {
    note += "jit cache: not cached (no cache directory: set CCOPT_CACHE_DIR)\n";
  } else if (std::string error; storeEntry(dir_, path, k, result.cubin, error)) {
    result.path = path;
  } else {
    note += "jit cache: not cached (" + error + ")\n";
  }
  result.log += note;
  return finish();
}

}  // namespace ccopt::rt

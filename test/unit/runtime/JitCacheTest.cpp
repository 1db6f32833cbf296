#include "runtime/jit/JitCache.h"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <thread>
#include <vector>

namespace ccopt::rt {
namespace {

namespace fs = std::filesystem;

// Small, so each miss costs one short NVRTC run.
const char* const kProbeSource = R"CCSRC(#include "ccopt/device.h"
CC_KERNEL(jit_cache_probe) {
  if (cc_tid() == 0 && CC_RANK == 1 && CC_CHANNEL == 1) *args->error = 42;
}
)CCSRC";
constexpr int kArch = 80;

std::vector<char> readBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}
void writeBytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}
std::vector<std::string> filesIn(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}
std::string digestHex(const std::vector<char>& bytes) {
  const auto d = sha256(bytes.data(), bytes.size());
  return toHex(d.data(), d.size());
}

// A fresh cache directory per test; never the user's ~/.cache.
class JitCacheTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "ccopt-jitcache-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    dir_ = root_ + "/cache";  // not created yet: the cache creates it
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  // A miss that stores an entry; returns it.
  JitResult compileFresh(const JitCache& cache) {
    JitResult r = cache.compile(kProbeSource, "probe.cu", kArch);
    EXPECT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(r.cacheHit);
    EXPECT_FALSE(r.path.empty()) << r.log;
    return r;
  }

  std::string root_, dir_;
};

TEST(Sha256, KnownVectors) {
  auto hex = [](const std::string& s) {
    const auto d = sha256(s.data(), s.size());
    return toHex(d.data(), d.size());
  };
  EXPECT_EQ(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // 56 bytes: the padding spills into a second block.
  EXPECT_EQ(hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(XxHash64, KnownVectors) {
  auto xx = [](const std::string& s) { return xxHash64(s.data(), s.size()); };
  EXPECT_EQ(xx(""), 0xef46db3751d8e999ull);
  EXPECT_EQ(xx("abc"), 0x44bc2cf5ad770999ull);
  // 39 bytes: one 32-byte stripe, then the 8-, 4- and 1-byte tails. The last
  // two figures were checked against LLVM's xxHash64.
  EXPECT_EQ(xx("Nobody inspects the spammish repetition"), 0xfbcea83c8a378bf1ull);
  EXPECT_EQ(xx(std::string(1000000, 'a')), 0xdc483aaa9b4fdc40ull);
}

TEST_F(JitCacheTest, MissThenHit) {
  const JitCache cache(dir_);
  const JitResult cold = compileFresh(cache);
  ASSERT_TRUE(cold.ok);
  EXPECT_EQ(std::string(cold.cubin.data() + 1, 3), "ELF");
  EXPECT_TRUE(fs::exists(cold.path));
  EXPECT_EQ(fs::path(cold.path).parent_path().string(), dir_);

  const JitResult hot = cache.compile(kProbeSource, "probe.cu", kArch);
  ASSERT_TRUE(hot.ok) << hot.log;
  EXPECT_TRUE(hot.cacheHit);
  EXPECT_EQ(hot.cubin, cold.cubin);
  EXPECT_EQ(hot.path, cold.path);

  // Another cache object on the same directory (another process, later) hits too.
  const JitResult again = JitCache(dir_).compile(kProbeSource, "probe.cu", kArch);
  EXPECT_TRUE(again.cacheHit);
  EXPECT_EQ(again.cubin, cold.cubin);
  EXPECT_EQ(filesIn(dir_).size(), 1u);
}

TEST_F(JitCacheTest, KeyCoversSourceNameArchAndOptions) {
  const JitCache cache(dir_);
  const std::string base = cache.entryPath(kProbeSource, "probe.cu", kArch);
  EXPECT_EQ(base, cache.entryPath(kProbeSource, "probe.cu", kArch));
  EXPECT_NE(base, cache.entryPath(std::string(kProbeSource) + "// changed\n", "probe.cu", kArch));
  EXPECT_NE(base, cache.entryPath(kProbeSource, "other.cu", kArch));
  EXPECT_NE(base, cache.entryPath(kProbeSource, "probe.cu", 90));
  EXPECT_NE(base, cache.entryPath(kProbeSource, "probe.cu", kArch, {"-lineinfo"}));
  EXPECT_NE(cache.entryPath(kProbeSource, "probe.cu", kArch, {"-DA", "-DB"}),
            cache.entryPath(kProbeSource, "probe.cu", kArch, {"-DA -DB"}));

  // And the compiles behind them: each is a miss with its own entry.
  compileFresh(cache);
  const JitResult sm90 = cache.compile(kProbeSource, "probe.cu", 90);
  EXPECT_TRUE(sm90.ok && !sm90.cacheHit) << sm90.log;
  const JitResult withOption = cache.compile(kProbeSource, "probe.cu", kArch, {"-DCC_JIT_TEST=1"});
  EXPECT_TRUE(withOption.ok && !withOption.cacheHit) << withOption.log;
  const JitResult edited = cache.compile(std::string(kProbeSource) + "// edited\n", "probe.cu", kArch);
  EXPECT_TRUE(edited.ok && !edited.cacheHit) << edited.log;
  EXPECT_EQ(filesIn(dir_).size(), 4u);
  EXPECT_TRUE(cache.compile(kProbeSource, "probe.cu", 90).cacheHit);
}

TEST_F(JitCacheTest, CorruptedEntryIsRebuilt) {
  const JitCache cache(dir_);
  const JitResult cold = compileFresh(cache);
  ASSERT_TRUE(cold.ok);
  const std::vector<char> good = readBytes(cold.path);

  // A flipped payload byte, then a flipped magic byte: each is discarded and rebuilt in place.
  for (size_t at : {good.size() / 2, size_t(0)}) {
    std::vector<char> bad = good;
    bad[at] ^= 0x5a;
    writeBytes(cold.path, bad);
    const JitResult r = cache.compile(kProbeSource, "probe.cu", kArch);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(r.cacheHit);
    EXPECT_NE(r.log.find("discarded"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find(at == 0 ? "bad magic" : "checksum"), std::string::npos) << r.log;
    EXPECT_EQ(r.cubin, cold.cubin);
    EXPECT_EQ(readBytes(cold.path), good);  // the bad file was replaced
    EXPECT_TRUE(cache.compile(kProbeSource, "probe.cu", kArch).cacheHit);
  }
}

TEST_F(JitCacheTest, TruncatedEntryIsRebuilt) {
  const JitCache cache(dir_);
  const JitResult cold = compileFresh(cache);
  ASSERT_TRUE(cold.ok);
  const std::vector<char> good = readBytes(cold.path);

  // Half the payload gone, a torn header, an empty file (a crash before the data reached disk).
  for (size_t keep : {good.size() - 1, good.size() / 2, size_t(10), size_t(0)}) {
    writeBytes(cold.path, std::vector<char>(good.begin(), good.begin() + std::ptrdiff_t(keep)));
    const JitResult r = cache.compile(kProbeSource, "probe.cu", kArch);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(r.cacheHit) << "kept " << keep << " bytes";
    EXPECT_NE(r.log.find("discarded"), std::string::npos) << r.log;
    EXPECT_EQ(r.cubin, cold.cubin);
    EXPECT_EQ(readBytes(cold.path), good);
  }
}

TEST_F(JitCacheTest, EntryOfAnotherKeyIsRebuilt) {
  const JitCache cache(dir_);
  const JitResult a = compileFresh(cache);
  const JitResult b = cache.compile(kProbeSource, "probe.cu", 90);
  ASSERT_TRUE(a.ok && b.ok);
  fs::copy_file(b.path, a.path, fs::copy_options::overwrite_existing);  // a valid entry, wrong place
  const JitResult r = cache.compile(kProbeSource, "probe.cu", kArch);
  EXPECT_FALSE(r.cacheHit);
  EXPECT_NE(r.log.find("another key"), std::string::npos) << r.log;
  EXPECT_EQ(r.cubin, a.cubin);
}

// Writers race on one key in a fresh directory: every one succeeds, one
// whole entry remains, no temp file is left.
void expectOneCleanEntry(const std::string& dir, const std::string& entry, const std::vector<std::string>& digests) {
  ASSERT_FALSE(digests.empty());
  for (const std::string& d : digests) EXPECT_EQ(d, digests.front());
  EXPECT_EQ(filesIn(dir), std::vector<std::string>{fs::path(entry).filename().string()});
  const JitResult hit = JitCache(dir).compile(kProbeSource, "probe.cu", kArch);
  EXPECT_TRUE(hit.cacheHit) << hit.log;
  EXPECT_EQ(digestHex(hit.cubin), digests.front());
}

TEST_F(JitCacheTest, ConcurrentProcessesWriteOneEntry) {
  constexpr int kWriters = 4;
  int go[2];
  ASSERT_EQ(pipe(go), 0);
  std::vector<pid_t> pids;
  std::vector<int> replies;
  for (int i = 0; i < kWriters; ++i) {
    int reply[2];
    ASSERT_EQ(pipe(reply), 0);
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      // Child: wait until every writer exists, compile, send the CUBIN's digest.
      close(go[1]);
      close(reply[0]);
      char c;
      while (read(go[0], &c, 1) > 0) {}
      const JitResult r = JitCache(dir_).compile(kProbeSource, "probe.cu", kArch);
      const std::string msg = r.ok && !r.path.empty() ? digestHex(r.cubin) : "FAILED " + r.log;
      ssize_t unused = write(reply[1], msg.data(), msg.size());
      (void)unused;
      _exit(r.ok ? 0 : 1);
    }
    close(reply[1]);
    pids.push_back(pid);
    replies.push_back(reply[0]);
  }
  close(go[0]);
  close(go[1]);  // start them all at once
  std::vector<std::string> digests;
  for (int i = 0; i < kWriters; ++i) {
    std::string msg;
    char buf[4096];
    for (ssize_t n; (n = read(replies[i], buf, sizeof buf)) > 0;) msg.append(buf, size_t(n));
    close(replies[i]);
    int status = 0;
    ASSERT_EQ(waitpid(pids[i], &status, 0), pids[i]);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << msg;
    digests.push_back(msg);
  }
  expectOneCleanEntry(dir_, JitCache(dir_).entryPath(kProbeSource, "probe.cu", kArch), digests);
}

TEST_F(JitCacheTest, ConcurrentThreadsWriteOneEntry) {
  constexpr int kWriters = 4;
  const JitCache cache(dir_);
  std::vector<JitResult> results(kWriters);
  std::vector<std::thread> threads;
  for (int i = 0; i < kWriters; ++i)
    threads.emplace_back([&, i] { results[i] = cache.compile(kProbeSource, "probe.cu", kArch); });
  for (std::thread& t : threads) t.join();
  std::vector<std::string> digests;
  for (const JitResult& r : results) {
    EXPECT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(r.path.empty()) << r.log;
    digests.push_back(digestHex(r.cubin));
  }
  expectOneCleanEntry(dir_, cache.entryPath(kProbeSource, "probe.cu", kArch), digests);
}

TEST_F(JitCacheTest, UnwritableDirectoryStillCompiles) {
  // A regular file where a directory must be: unwritable even for root.
  writeBytes(root_ + "/file", {'x'});
  const JitCache cache(root_ + "/file/cache");
  for (int i = 0; i < 2; ++i) {
    const JitResult r = cache.compile(kProbeSource, "probe.cu", kArch);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_FALSE(r.cacheHit);
    EXPECT_TRUE(r.path.empty());
    EXPECT_EQ(std::string(r.cubin.data() + 1, 3), "ELF");
    EXPECT_NE(r.log.find("not cached"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("cannot create"), std::string::npos) << r.log;
  }
}

TEST_F(JitCacheTest, NoDirectoryMeansNoCaching) {
  const JitResult r = JitCache("").compile(kProbeSource, "probe.cu", kArch);
  ASSERT_TRUE(r.ok) << r.log;
  EXPECT_FALSE(r.cacheHit);
  EXPECT_TRUE(r.path.empty());
  EXPECT_NE(r.log.find("no cache directory"), std::string::npos) << r.log;
}

TEST_F(JitCacheTest, CompileErrorIsReportedAndNotCached) {
  const JitCache cache(dir_);
  for (int i = 0; i < 2; ++i) {
    const JitResult r = cache.compile("#include \"ccopt/device.h\"\nCC_KERNEL(bad) {\n  int x = ;\n}\n", "bad.cu", kArch);
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.cacheHit);
    EXPECT_TRUE(r.cubin.empty());
    EXPECT_NE(r.log.find("bad.cu(3)"), std::string::npos) << r.log;
  }
  EXPECT_FALSE(fs::exists(dir_) && !fs::is_empty(dir_));
}

// Sets (or unsets, with null) an environment variable for one scope.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { had_ ? setenv(name_, old_.c_str(), 1) : unsetenv(name_); }

private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

TEST(JitCacheDefaultDir, FollowsEnvironment) {
  ScopedEnv home("HOME", "/home/u");
  {
    ScopedEnv cc("CCOPT_CACHE_DIR", "/scratch/cc");
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(JitCache::defaultDir(), "/scratch/cc");
  }
  ScopedEnv cc("CCOPT_CACHE_DIR", nullptr);
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(JitCache::defaultDir(), "/xdg/ccopt");
  }
  {
    ScopedEnv xdg("XDG_CACHE_HOME", "relative");  // invalid per the XDG spec: ignored
    EXPECT_EQ(JitCache::defaultDir(), "/home/u/.cache/ccopt");
  }
  ScopedEnv xdg("XDG_CACHE_HOME", nullptr);
  EXPECT_EQ(JitCache::defaultDir(), "/home/u/.cache/ccopt");
}

// Not a check: the figures the cache is for (cold NVRTC vs a disk hit).
TEST_F(JitCacheTest, TimingColdVsHit) {
  const JitCache cache(dir_);
  const JitResult cold = compileFresh(cache);
  ASSERT_TRUE(cold.ok);
  constexpr int kHits = 200;
  std::vector<double> hits;
  for (int i = 0; i < kHits; ++i) {
    const JitResult r = cache.compile(kProbeSource, "probe.cu", kArch);
    ASSERT_TRUE(r.cacheHit);
    hits.push_back(r.seconds);
  }
  std::sort(hits.begin(), hits.end());
  std::cout << "[ jitcache ] sm_" << kArch << " probe kernel (" << cold.cubin.size() << "-byte cubin): cold "
            << cold.seconds << " s, hit median " << hits[kHits / 2] * 1e6 << " us, min " << hits[0] * 1e6
            << " us\n";
}

}  // namespace
}  // namespace ccopt::rt

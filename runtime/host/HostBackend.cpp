#include "runtime/host/HostBackend.h"

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#ifndef CCOPT_RUNTIME_INCLUDE_DIR
#error "CCOPT_RUNTIME_INCLUDE_DIR must name runtime/include"
#endif

namespace ccopt::rt {
namespace {

// Single-quote for /bin/sh.
std::string shellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A fresh private directory, removed with its files on destruction.
class TempDir {
public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/ccopt-host-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data())) path_ = buf.data();
  }
  ~TempDir() {
    if (path_.empty()) return;
    for (const std::string& f : files_) unlink((path_ + "/" + f).c_str());
    rmdir(path_.c_str());
  }
  bool ok() const { return !path_.empty(); }
  std::string file(const std::string& name) {
    files_.push_back(name);
    return path_ + "/" + name;
  }

private:
  std::string path_;
  std::vector<std::string> files_;
};

}  // namespace

std::unique_ptr<HostModule> HostModule::compile(const std::string& cudaSource, std::string& error) {
  error.clear();
  TempDir dir;
  if (!dir.ok()) {
    error = std::string("cannot create a temporary directory: ") + std::strerror(errno);
    return nullptr;
  }
  const std::string src = dir.file("kernel.cpp"), so = dir.file("kernel.so"), log = dir.file("log");
  {
    std::ofstream out(src, std::ios::binary);
    out << cudaSource;
    if (!out) {
      error = "cannot write " + src;
      return nullptr;
    }
  }
  const char* cxxEnv = std::getenv("CXX");
  const std::string cxx = cxxEnv && *cxxEnv ? cxxEnv : "c++";  // may hold a launcher: not quoted
  const std::string cmd = cxx + " -x c++ -std=c++17 -O2 -fPIC -shared -I" +
                          shellQuote(CCOPT_RUNTIME_INCLUDE_DIR) + " -o " + shellQuote(so) + " " +
                          shellQuote(src) + " >" + shellQuote(log) + " 2>&1";
  const int status = std::system(cmd.c_str());
  if (status != 0) {
    std::ifstream in(log, std::ios::binary);
    error.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (error.empty()) error = "host compiler failed (status " + std::to_string(status) + "): " + cmd;
    return nullptr;
  }
  // The mapping outlives the file, which TempDir removes.
  void* handle = dlopen(so.c_str(), RTLD_LOCAL | RTLD_NOW);
  if (!handle) {
    const char* e = dlerror();
    error = std::string("dlopen: ") + (e ? e : "unknown error");
    return nullptr;
  }
  return std::unique_ptr<HostModule>(new HostModule(handle));
}

KernelFn HostModule::kernel(const std::string& name, std::string& error) const {
  dlerror();
  void* sym = dlsym(handle_, name.c_str());
  if (!sym) {
    const char* e = dlerror();
    error = "no kernel '" + name + "'" + (e ? std::string(": ") + e : std::string());
    return nullptr;
  }
  return reinterpret_cast<KernelFn>(sym);
}

HostModule::~HostModule() {
  if (handle_) dlclose(handle_);
}

void HostWorld::Free::operator()(void* p) const { std::free(p); }

HostWorld::Block HostWorld::allocZeroed(size_t bytes) {
  // Non-empty and whole cache lines, so ranks never share a line.
  const size_t size = std::max<size_t>(64, (bytes + 63) / 64 * 64);
  void* p = std::aligned_alloc(64, size);
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, size);
  return Block(p);
}

HostWorld::HostWorld(int nranks, int nchannels, size_t inputBytes, size_t outputBytes,
                     size_t scratchBytes, bool inPlace, size_t mailboxBytes)
    : nranks_(nranks), nchannels_(nchannels),
      syncBytes_(size_t(cc_sync_bytes(nranks, nchannels, (long long)mailboxBytes))) {
  if (inPlace) inputBytes = outputBytes = std::max(inputBytes, outputBytes);
  bytes_[CC_BUF_INPUT] = inputBytes;
  bytes_[CC_BUF_OUTPUT] = outputBytes;
  bytes_[CC_BUF_SCRATCH] = scratchBytes;
  bufPtrs_.resize(size_t(nranks) * CC_NUM_BUFS);
  for (int r = 0; r < nranks; ++r) {
    void** bufs = &bufPtrs_[size_t(r) * CC_NUM_BUFS];
    for (int k = 0; k < CC_NUM_BUFS; ++k) {
      if (inPlace && k == CC_BUF_OUTPUT) {
        bufs[k] = bufs[CC_BUF_INPUT];
        continue;
      }
      storage_.push_back(allocZeroed(bytes_[k]));
      bufs[k] = storage_.back().get();
    }
    storage_.push_back(allocZeroed(syncBytes_));
    syncPtrs_.push_back(static_cast<cc_u64*>(storage_.back().get()));
  }
}

HostWorld::~HostWorld() = default;

void HostWorld::resetSync() {
  for (cc_u64* s : syncPtrs_) std::memset(s, 0, syncBytes_);
}

int HostWorld::launch(KernelFn fn, std::chrono::nanoseconds timeout) {
  // A failed launch leaves the counters of its ranks out of step.
  if (needsReset_) resetSync();
  __atomic_store_n(&abort_, 0, __ATOMIC_SEQ_CST);
  error_ = CC_OK;
  ++epoch_;

  cc_args args{};
  args.nranks = nranks_;
  args.nchannels = nchannels_;
  args.rank_base = 0;
  args.epoch = epoch_;
  args.timeout_ns = timeout.count() > 0 ? cc_u64(timeout.count()) : 0;
  args.bufs = bufPtrs_.data();
  args.sync = syncPtrs_.data();
  args.abort = &abort_;
  args.error = &error_;

  std::vector<std::thread> threads;
  threads.reserve(size_t(nranks_) * nchannels_);
  try {
    for (int r = 0; r < nranks_; ++r)
      for (int ch = 0; ch < nchannels_; ++ch) threads.emplace_back(fn, &args, ch, r);
  } catch (...) {
    // Out of threads: release the ones already waiting, then report.
    __atomic_store_n(&abort_, 1, __ATOMIC_SEQ_CST);
    for (std::thread& t : threads) t.join();
    needsReset_ = true;
    throw;
  }
  for (std::thread& t : threads) t.join();

  needsReset_ = error_ != CC_OK;
  return error_;
}

}  // namespace ccopt::rt

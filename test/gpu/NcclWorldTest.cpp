// libccrt backend (c): one process per GPU, bootstrapped through an NCCL
// communicator. Forks two ranks before anything touches CUDA; rank 0 makes
// the NCCL id and hands it to rank 1 through a pipe; both bind the same
// 2-rank all-reduce (buffers exchanged as CUDA IPC handles with
// ncclAllGather) and check three launches. Exit 0 pass, 1 fail, 77 skip
// (fewer than 2 GPUs, or no NCCL).
#include "runtime/ccrt/CudaBuffers.h"
#include "runtime/ccrt/CudaRunner.h"
#include "runtime/nccl/NcclLibrary.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <vector>

using namespace ccopt::rt;

namespace {

constexpr int kSkip = 77;

int fail(int rank, const std::string& what) {
  std::fprintf(stderr, "rank %d: %s\n", rank, what.c_str());
  return 1;
}

int runRank(int rank, int idPipe[2]) {
  const DeviceStatus dev = probeCudaDevices();
  if (!dev.available || dev.count < 2) {
    std::printf("rank %d: skipped: %s\n", rank, dev.available ? "fewer than 2 GPUs" : dev.reason.c_str());
    return kSkip;
  }
  std::string error;
  const NcclApi* nccl = ncclApi(error);
  if (!nccl) return std::printf("rank %d: skipped: %s\n", rank, error.c_str()), kSkip;
  ncclUniqueId id{};
  if (rank == 0) {
    if (nccl->ncclGetUniqueId(&id) != ncclSuccess) return fail(rank, "ncclGetUniqueId");
    if (write(idPipe[1], &id, sizeof id) != ssize_t(sizeof id)) return fail(rank, "pipe write");
  } else if (read(idPipe[0], &id, sizeof id) != ssize_t(sizeof id)) {
    return fail(rank, "pipe read");
  }
  auto ctx = CudaContext::primary(rank, error);
  if (!ctx || !ctx->makeCurrent(error)) return fail(rank, error);
  ncclComm_t comm = nullptr;
  if (ncclResult_t rc = nccl->ncclCommInitRank(&comm, 2, id, rank); rc != ncclSuccess)
    return fail(rank, nccl->describe("ncclCommInitRank", rc));

  KernelLibrary lib;
  Status st = loadKernelLibrary(std::string(CCOPT_KERNELS_DIR) + "/all_reduce-sum-f32-2r-4096.cu", lib);
  if (!st.ok()) return fail(rank, st.message);
  JitCache cache;
  auto program = CudaProgram::compile(lib, {rank}, cache, st);
  if (!program) return fail(rank, st.message);
  const Schedule& s = lib.schedules[0];
  auto in = DeviceAllocation::create(ctx, s.inputBytes(), st);
  auto out = DeviceAllocation::create(ctx, s.outputBytes(), st);
  if (!in || !out) return fail(rank, st.message);
  RankBuffers mine;
  mine.rank = rank;
  mine.device = rank;
  mine.input = {in->data(), s.inputCount, s.element, s.inputBytes()};
  mine.output = {out->data(), s.outputCount, s.element, s.outputBytes()};
  auto c = program->bindNccl(s.kernel, comm, mine, {}, st);
  if (!c) return fail(rank, "bindNccl: " + st.message);
  long long wrong = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<float> host(size_t(s.inputCount));
    for (size_t i = 0; i < host.size(); ++i) host[i] = float((i * 7 + rank * 3 + round) % 11);
    if (!ctx->copyToDevice(in->data(), host.data(), host.size() * 4, error)) return fail(rank, error);
    // No fence needed between rounds: a kernel writes into a peer only once
    // the peer has entered the same launch (the epoch in cc_peer_buf).
    if (!(st = c->launch()).ok()) return fail(rank, st.message);
    if (!ctx->synchronize(error)) return fail(rank, error);
    if (!(st = c->asyncError()).ok()) return fail(rank, st.message);
    if (!ctx->copyToHost(host.data(), out->data(), host.size() * 4, error)) return fail(rank, error);
    for (size_t i = 0; i < host.size(); ++i)
      wrong += host[i] != float((i * 7 + round) % 11) + float((i * 7 + 3 + round) % 11);
  }
  c.reset();
  nccl->ncclCommDestroy(comm);
  std::printf("rank %d: %lld wrong elements over 3 launches\n", rank, wrong);
  return wrong ? 1 : 0;
}

}  // namespace

int main() {
  int idPipe[2];
  if (pipe(idPipe) != 0) return 1;
  pid_t pids[2];
  for (int rank = 0; rank < 2; ++rank) {
    pids[rank] = fork();
    if (pids[rank] < 0) return 1;
    if (pids[rank] == 0) {
      const int code = runRank(rank, idPipe);
      std::fflush(stdout);
      _exit(code);
    }
  }
  close(idPipe[0]);
  close(idPipe[1]);
  int result = 0;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    if (code == kSkip && result == 0) result = kSkip;
    else if (code != 0 && code != kSkip) result = 1;
  }
  return result;
}

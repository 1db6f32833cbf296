// The C API (include/ccopt/ccopt.h) over Compile.h and Executable.h.
#include "ccopt/ccopt.h"

#include "api/Compile.h"
#include "api/Executable.h"

#include <chrono>

using ccopt::rt::Code;
using ccopt::rt::Status;

struct ccopt_program {
  ccopt::CompiledProgram program;
};

struct ccopt_executable {
  std::unique_ptr<ccopt::Executable> exe;
  std::map<int, ccopt::RankMemory> pending;
};

namespace {

thread_local std::string lastError;

int fail(const Status& s) {
  lastError = s.message;
  return int(s.code);
}
int fail(Code code, const std::string& message) { return fail(Status::error(code, message)); }
int done(const Status& s) {
  if (!s.ok()) return fail(s);
  lastError.clear();
  return CCOPT_OK;
}

}  // namespace

extern "C" {

int ccopt_compile(const char* text, const char* topo, ccopt_program** out) {
  ccopt_compile_options options;
  ccopt_compile_options_init(&options);
  options.topo = topo;
  return ccopt_compile_with(text, &options, out);
}

void ccopt_compile_options_init(ccopt_compile_options* o) {
  if (o) *o = ccopt_compile_options{nullptr, nullptr, 1, 0, 0, 0.0, nullptr, nullptr};
}

int ccopt_compile_with(const char* text, const ccopt_compile_options* o, ccopt_program** out) {
  if (!text || !o || !out) return fail(Code::InvalidArgument, "ccopt_compile: null argument");
  *out = nullptr;
  auto p = std::make_unique<ccopt_program>();
  ccopt::CompileOptions options;
  options.topo = o->topo ? o->topo : "";
  options.topoFile = o->topo_file ? o->topo_file : "";
  options.nodes = o->nodes;
  options.chunks = o->chunks;
  options.channels = o->channels;
  options.bucketCapMb = o->bucket_cap_mb;
  options.compress = o->compress ? o->compress : "";
  options.profile = o->profile ? o->profile : "";
  if (Status s = ccopt::compileProgram(text, options, p->program); !s.ok()) return fail(s);
  *out = p.release();
  return done(Status::success());
}

int ccopt_program_ranks(const ccopt_program* p) { return p ? p->program.ranks : -1; }

int ccopt_program_steps(const ccopt_program* p) { return p ? int(p->program.steps.size()) : -1; }

int ccopt_program_buckets(const ccopt_program* p) { return p ? int(p->program.buckets.size()) : -1; }

const char* ccopt_program_source(const ccopt_program* p) { return p ? p->program.library.source.c_str() : ""; }

void ccopt_program_destroy(ccopt_program* p) { delete p; }

int ccopt_load(const ccopt_program* p, int target, int device, void* comm, double timeout, ccopt_executable** out) {
  if (!p || !out) return fail(Code::InvalidArgument, "ccopt_load: null argument");
  *out = nullptr;
  if (target < CCOPT_TARGET_HOST || target > CCOPT_TARGET_NCCL)
    return fail(Code::InvalidArgument, "ccopt_load: unknown target " + std::to_string(target));
  if (!(timeout >= 0)) return fail(Code::InvalidArgument, "ccopt_load: negative timeout");
  ccopt::Target t;
  t.kind = ccopt::Target::Kind(target);
  t.device = device;
  t.ncclComm = comm;
  t.launch.timeout = std::chrono::nanoseconds(static_cast<long long>(timeout * 1e9));
  Status s;
  auto e = std::make_unique<ccopt_executable>();
  e->exe = ccopt::Executable::load(p->program, t, s);
  if (!e->exe) return fail(s);
  *out = e.release();
  return done(s);
}

int ccopt_set_buffer(ccopt_executable* e, int rank, int device, const char* name, void* data, size_t bytes) {
  if (!e || !name) return fail(Code::InvalidArgument, "ccopt_set_buffer: null argument");
  ccopt::RankMemory& m = e->pending[rank];
  m.rank = rank;
  m.device = device;
  m.buffers[name] = {data, bytes};
  return done(Status::success());
}

int ccopt_bind(ccopt_executable* e) {
  if (!e) return fail(Code::InvalidArgument, "ccopt_bind: null executable");
  std::vector<ccopt::RankMemory> ranks;
  for (auto& [rank, m] : e->pending) ranks.push_back(m);
  return done(e->exe->bind(ranks));
}

int ccopt_run(ccopt_executable* e, void* const* streams, int n) {
  if (!e || n < 0 || (n && !streams)) return fail(Code::InvalidArgument, "ccopt_run: bad arguments");
  return done(e->exe->run(std::vector<void*>(streams, streams + n)));
}

int ccopt_async_error(const ccopt_executable* e) {
  if (!e) return fail(Code::InvalidArgument, "ccopt_async_error: null executable");
  return done(e->exe->asyncError());
}

int ccopt_abort(ccopt_executable* e) {
  if (!e) return fail(Code::InvalidArgument, "ccopt_abort: null executable");
  e->exe->abort();
  return done(Status::success());
}

int ccopt_reset(ccopt_executable* e) {
  if (!e) return fail(Code::InvalidArgument, "ccopt_reset: null executable");
  return done(e->exe->reset());
}

void ccopt_executable_destroy(ccopt_executable* e) { delete e; }

const char* ccopt_last_error(void) { return lastError.c_str(); }

const char* ccopt_error_name(int code) {
  if (code < 0 || code > CCOPT_INTERNAL) return "unknown error";
  return ccopt::rt::codeName(Code(code));
}

}  // extern "C"

/* ccopt C API, for FFI (Python ctypes, Rust, ...): compile a ccl program
 * once, load it for a target, bind named buffers per rank, run it on every
 * step. Opaque handles; every call returns CCOPT_OK (0) or an error code,
 * and ccopt_last_error() gives the message of the calling thread's last
 * failure. Nothing aborts the process. */
#ifndef CCOPT_CCOPT_H
#define CCOPT_CCOPT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes: the same numbers as ccopt::rt::Code. */
enum {
  CCOPT_OK = 0,
  CCOPT_INVALID_ARGUMENT = 1,
  CCOPT_INVALID_USAGE = 2,
  CCOPT_NO_DEVICE = 3,
  CCOPT_CUDA_ERROR = 4,
  CCOPT_NCCL_ERROR = 5,
  CCOPT_COMPILE_ERROR = 6,
  CCOPT_TIMEOUT = 7,
  CCOPT_ABORTED = 8,
  CCOPT_NOT_SUPPORTED = 9,
  CCOPT_INTERNAL = 10
};

/* Targets: see ccopt::Target. */
enum {
  CCOPT_TARGET_HOST = 0,
  CCOPT_TARGET_VIRTUAL_RANKS = 1,
  CCOPT_TARGET_DEVICES = 2,
  CCOPT_TARGET_NCCL = 3
};

typedef struct ccopt_program ccopt_program;
typedef struct ccopt_executable ccopt_executable;

/* Compiles the ccl.program in `mlir_text` for machine `topo` (a preset name,
 * or NULL / "" for the program's own world(N)). */
int ccopt_compile(const char* mlir_text, const char* topo, ccopt_program** out);

/* What ccopt_compile_with takes (ccopt::CompileOptions). Fill it with
 * ccopt_compile_options_init, then set what differs; NULL strings are "". */
typedef struct ccopt_compile_options {
  const char* topo;      /* machine preset, or NULL: the program's world(N) */
  const char* topo_file; /* or a machine file */
  int nodes;             /* 1 */
  long long chunks;      /* 0: automatic */
  long long channels;    /* 0: automatic */
  double bucket_cap_mb;  /* > 0: fuse small all_reduces into buckets of up to this many MiB; 0: none */
  const char* compress;  /* NULL, "f16" or "bf16": the wire type of f32 reductions */
  const char* profile;   /* compute profile JSON: plan overlap with compute */
} ccopt_compile_options;
void ccopt_compile_options_init(ccopt_compile_options* options);
/* ccopt_compile with every option; a bad option is CCOPT_COMPILE_ERROR
 * naming its field (ccopt_last_error). */
int ccopt_compile_with(const char* mlir_text, const ccopt_compile_options* options, ccopt_program** out);
/* The program's world size, or -1 for NULL. */
int ccopt_program_ranks(const ccopt_program* program);
/* Its collectives as run (fused ones count once), and its buckets; -1 for NULL. */
int ccopt_program_steps(const ccopt_program* program);
int ccopt_program_buckets(const ccopt_program* program);
/* Its emitted CUDA source with metadata (valid while the program lives). */
const char* ccopt_program_source(const ccopt_program* program);
void ccopt_program_destroy(ccopt_program* program);

/* Loads `program` for a target: `device` for VIRTUAL_RANKS and NCCL,
 * `nccl_comm` (an ncclComm_t) for NCCL; waits give up after
 * `timeout_seconds` (0: never). */
int ccopt_load(const ccopt_program* program, int target, int device, void* nccl_comm, double timeout_seconds,
               ccopt_executable** out);
/* Records buffer `name` of `rank` (on `device` for DEVICES, else -1); takes
 * effect at the next ccopt_bind. */
int ccopt_set_buffer(ccopt_executable* exe, int rank, int device, const char* name, void* data, size_t bytes);
/* Checks and binds every buffer recorded so far; on error nothing changes. */
int ccopt_bind(ccopt_executable* exe);
/* Runs every collective in order; `streams`: one per local device (or NULL). */
int ccopt_run(ccopt_executable* exe, void* const* streams, int nstreams);
/* The first asynchronous error of a kernel (CCOPT_OK when none); never blocks. */
int ccopt_async_error(const ccopt_executable* exe);
int ccopt_abort(ccopt_executable* exe);
int ccopt_reset(ccopt_executable* exe);
void ccopt_executable_destroy(ccopt_executable* exe);

/* The message of this thread's last failed call ("" when none). */
const char* ccopt_last_error(void);
/* A short name of an error code ("invalid argument", ...). */
const char* ccopt_error_name(int code);

#ifdef __cplusplus
}
#endif

#endif

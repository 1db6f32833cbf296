// ccopt device primitives: the contract that emitted collective kernels are
// written against.
//
// One header, two backends chosen by the compiler that reads it:
//  - CUDA (nvcc or NVRTC): one thread block per (rank, channel); blockIdx.x is
//    the channel, blockIdx.y the rank relative to args->rank_base.
//  - host (plain C++17): one OS thread per (rank, channel) plays the block; the
//    block is a single thread. This is how tests run emitted code without a GPU.
//
// NVRTC has no standard library headers, so the shared part uses only builtin
// types and its own tiny traits.
//
// Synchronisation model. Every rank owns a sync area of cc_sync_words(N, C)
// 64-bit words, zeroed once:
//   [0]                     entered: the epoch this rank last entered
//   [1 + ch*N + src]        inbound: messages src has sent to this rank on ch (written by src)
//   [1 + C*N + ch*N + src]  seen:    messages from src on ch consumed so far (local)
//   [1 + 2*C*N + ch*N + dst] sent:   messages sent to dst on ch so far (local)
// The counters only grow, so consecutive launches need no reset: a receiver
// waits until inbound >= ++seen, a sender publishes ++sent into the
// destination's inbound word.
//
// LL protocol (NCCL's low latency): from the first 128-byte boundary after
// those words (cc_mailbox_begin), a schedule compiled for LL has a mailbox of
// cc_ll_box{slots, lines, regions, senders}: for every channel `regions`
// regions, one per rank that sends this one messages on it, of `slots`
// slots of `lines` 8-byte lines {data32, flag32}. A sender's region is its
// index in senders[(ch * nranks + owner) * regions ...]; without that table,
// 0 where every rank hears from one rank per channel (rings), else its rank.
// Message number m from src (the same sent/seen counters) goes into slot
// (m - 1) % slots of its region, every line flagged
// with (unsigned)m, so the receiver polls the data itself: no fence, no
// separate flag. A sender reuses a slot once the receiver's seen counter
// says the previous message there was consumed; the compiler gives up to 8
// slots per (channel, src) (NCCL_STEPS), so a longer pipeline waits for its
// receiver as NCCL's LL does. The mailbox is zeroed with the counters (a
// reset starts both over).
// LL128 (NCCL's): the same mailbox and flow control with cc_ll128_box, whose
// lines are 128 bytes: 15 data words and a flag word m (64-bit). On CUDA a
// warp writes and reads whole lines in single instructions (see ll128_store
// for the hardware property that relies on).
#ifndef CCOPT_DEVICE_H
#define CCOPT_DEVICE_H

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define CC_CUDA 1
#endif

// ===========================================================================
// ABI shared with the launcher (plain data, identical layout on both sides)
// ===========================================================================

typedef unsigned long long cc_u64;

enum { CC_BUF_INPUT = 0, CC_BUF_OUTPUT = 1, CC_BUF_SCRATCH = 2, CC_NUM_BUFS = 3 };
enum { CC_OK = 0, CC_ERR_TIMEOUT = 1, CC_ERR_ABORTED = 2 };

struct cc_args {
  int nranks;             // world size
  int nchannels;
  int rank_base;          // rank handled by block y == 0 (several virtual ranks per launch)
  int reserved;
  cc_u64 epoch;           // 1 for the first launch over these sync areas, +1 per launch
  cc_u64 timeout_ns;      // a spin-wait gives up after this long (0: never)
  void* const* bufs;      // [nranks * CC_NUM_BUFS]: every rank's buffers as seen from this device
  cc_u64* const* sync;    // [nranks]: every rank's sync area
  volatile int* abort;    // non-zero: every wait returns at once
  int* error;             // first error code (left at CC_OK on success)
  void* const* multicast; // [nranks * CC_NUM_BUFS]: buffers' multicast addresses on
                          // each rank's GPU (NVLS schedules on CUDA; null otherwise)
};
static_assert(sizeof(cc_args) == 72, "cc_args layout is part of the ABI");

// ===========================================================================
// Backend: CUDA
// ===========================================================================
#ifdef CC_CUDA

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define CC_DEVICE __device__ __forceinline__
#define CC_HOST_DEVICE __host__ __device__ __forceinline__
// What every step does (move data, signal, wait, split a buffer in parts):
// one function that the steps call, not a copy per step. NVRTC's time grows
// faster than the kernel: a node-aware kernel of 10k lines took 147 s with
// its movers inlined, and a 6k-line one 39 s with its signals and 64-bit
// divisions inlined, 15 s called; a call per message is noise.
#define CC_CALLED __device__ __noinline__
#define CC_HOST_DEVICE_CALLED __host__ __device__ __noinline__
#define CC_UNROLL _Pragma("unroll")  // in shared code (the host compiler has no such pragma)
#define CC_KERNEL(name) extern "C" __global__ void name(const cc_args* args)
// Constant tables of emitted code (e.g. a task's rank order).
#define CC_TABLE static __device__ const
#define CC_RANK (args->rank_base + (int)blockIdx.y)
#define CC_CHANNEL ((int)blockIdx.x)

typedef __half cc_f16;
typedef __nv_bfloat16 cc_bf16;

CC_DEVICE int cc_tid() { return (int)threadIdx.x; }
CC_DEVICE int cc_nthreads() { return (int)blockDim.x; }
CC_DEVICE void cc_barrier() { __syncthreads(); }

namespace cc_detail {

// System scope: peers may be other GPUs or the host (sm_70+).
CC_DEVICE cc_u64 load_acquire(const cc_u64* p) {
  cc_u64 v;
  asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
CC_DEVICE void store_release(cc_u64* p, cc_u64 v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
CC_DEVICE void store_relaxed(cc_u64* p, cc_u64 v) {
  asm volatile("st.relaxed.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
CC_DEVICE cc_u64 now_ns() {
  cc_u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
CC_DEVICE void relax(unsigned) {}  // the SM has other warps to run; spinning is cheap
CC_DEVICE int load_abort(const cc_args* a) { return *a->abort; }
// Fences on both sides of the error word: a thread that saw the abort flag
// then finds the first error already recorded.
CC_DEVICE void fail(const cc_args* a, int code) {
  __threadfence_system();
  atomicCAS(a->error, CC_OK, code);
  __threadfence_system();
  *a->abort = 1;
}

CC_DEVICE float f16_to_float(cc_f16 x) { return __half2float(x); }
CC_DEVICE cc_f16 float_to_f16(float x) { return __float2half_rn(x); }
CC_DEVICE float bf16_to_float(cc_bf16 x) { return __bfloat162float(x); }
CC_DEVICE cc_bf16 float_to_bf16(float x) { return __float2bfloat16_rn(x); }

}  // namespace cc_detail

// ===========================================================================
// Backend: host (C++17, one thread per block)
// ===========================================================================
#else

#include <chrono>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#define CC_DEVICE inline
#define CC_HOST_DEVICE inline
#define CC_CALLED inline
#define CC_HOST_DEVICE_CALLED inline
#define CC_UNROLL
#define CC_KERNEL(name) extern "C" void name(const cc_args* args, [[maybe_unused]] int cc_bx, [[maybe_unused]] int cc_by)
#define CC_TABLE static const
#define CC_RANK (args->rank_base + cc_by)
#define CC_CHANNEL (cc_bx)

struct cc_f16 { uint16_t bits; };
struct cc_bf16 { uint16_t bits; };

CC_DEVICE int cc_tid() { return 0; }
CC_DEVICE int cc_nthreads() { return 1; }
CC_DEVICE void cc_barrier() {}

namespace cc_detail {

CC_DEVICE cc_u64 load_acquire(const cc_u64* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
CC_DEVICE void store_release(cc_u64* p, cc_u64 v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
CC_DEVICE void store_relaxed(cc_u64* p, cc_u64 v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
CC_DEVICE cc_u64 now_ns() {
  return (cc_u64)std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch()).count();
}
// Many more threads than cores: after a short spin, give the core to the
// thread we are waiting for.
CC_DEVICE void relax(unsigned iter) {
  if (iter < 64) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  } else {
    sched_yield();
  }
}
CC_DEVICE int load_abort(const cc_args* a) { return __atomic_load_n(a->abort, __ATOMIC_ACQUIRE); }
CC_DEVICE void fail(const cc_args* a, int code) {
  int expected = CC_OK;
  __atomic_compare_exchange_n(a->error, &expected, code, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  __atomic_store_n(a->abort, 1, __ATOMIC_SEQ_CST);
}

// IEEE binary16 / bfloat16 with round-to-nearest-even; NaN stays NaN (quiet).
CC_DEVICE uint32_t float_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
CC_DEVICE float bits_float(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

CC_DEVICE cc_f16 float_to_f16(float f) {
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
  uint32_t h;
  if (ax > 0x7f800000u) {                      // NaN: keep the top payload bits, force quiet
    h = 0x7e00u | ((ax >> 13) & 0x3ffu);
  } else if (ax >= 0x47800000u) {              // >= 2^16 (and inf): inf
    h = 0x7c00u;
  } else if (ax >= 0x38800000u) {              // normal half: rebias 127 -> 15, round 13 bits
    h = (ax - 0x38000000u) >> 13;
    const uint32_t rem = ax & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h;  // a carry may give inf: correct
  } else if (ax > 0x33000000u) {               // subnormal half (2^-25 < |f| < 2^-14)
    const uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - e;           // 14..24
    h = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rem > half || (rem == half && (h & 1u))) ++h;
  } else {                                      // |f| <= 2^-25 rounds to (signed) zero
    h = 0;
  }
  cc_f16 r;
  r.bits = (uint16_t)(sign | h);
  return r;
}

CC_DEVICE float f16_to_float(cc_f16 v) {
  const uint32_t sign = (uint32_t)(v.bits & 0x8000u) << 16;
  uint32_t exp = (v.bits >> 10) & 0x1fu, man = v.bits & 0x3ffu;
  if (exp == 0x1fu) return bits_float(sign | 0x7f800000u | (man << 13));
  if (exp != 0) return bits_float(sign | ((exp + 112u) << 23) | (man << 13));
  if (man == 0) return bits_float(sign);
  uint32_t e = 113u;                            // subnormal: normalise
  while (!(man & 0x400u)) { man <<= 1; --e; }
  return bits_float(sign | (e << 23) | ((man & 0x3ffu) << 13));
}

CC_DEVICE cc_bf16 float_to_bf16(float f) {
  const uint32_t x = float_bits(f);
  cc_bf16 r;
  if ((x & 0x7fffffffu) > 0x7f800000u)
    r.bits = (uint16_t)((x >> 16) | 0x40u);     // NaN: quiet, never rounds into inf
  else
    r.bits = (uint16_t)((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);
  return r;
}
CC_DEVICE float bf16_to_float(cc_bf16 v) { return bits_float((uint32_t)v.bits << 16); }

}  // namespace cc_detail

#endif  // backends

// ===========================================================================
// Shared: everything below is written once against the backend primitives
// ===========================================================================

// --- Types and conversion ---------------------------------------------------

template <class T> struct cc_type_identity { typedef T type; };

// Accumulation type: half precision types accumulate in float.
template <class T> struct cc_acc { typedef T type; };
template <> struct cc_acc<cc_f16> { typedef float type; };
template <> struct cc_acc<cc_bf16> { typedef float type; };
template <class T> using cc_acc_t = typename cc_acc<T>::type;

namespace cc_detail {
template <class To, class From> struct cvt { static CC_DEVICE To run(From x) { return (To)x; } };
template <class From> struct cvt<cc_f16, From> {
  static CC_DEVICE cc_f16 run(From x) { return float_to_f16((float)x); }
};
template <class To> struct cvt<To, cc_f16> {
  static CC_DEVICE To run(cc_f16 x) { return (To)f16_to_float(x); }
};
template <class From> struct cvt<cc_bf16, From> {
  static CC_DEVICE cc_bf16 run(From x) { return float_to_bf16((float)x); }
};
template <class To> struct cvt<To, cc_bf16> {
  static CC_DEVICE To run(cc_bf16 x) { return (To)bf16_to_float(x); }
};
template <> struct cvt<cc_f16, cc_f16> { static CC_DEVICE cc_f16 run(cc_f16 x) { return x; } };
template <> struct cvt<cc_bf16, cc_bf16> { static CC_DEVICE cc_bf16 run(cc_bf16 x) { return x; } };
template <> struct cvt<cc_f16, cc_bf16> {
  static CC_DEVICE cc_f16 run(cc_bf16 x) { return float_to_f16(bf16_to_float(x)); }
};
template <> struct cvt<cc_bf16, cc_f16> {
  static CC_DEVICE cc_bf16 run(cc_f16 x) { return float_to_bf16(f16_to_float(x)); }
};
}  // namespace cc_detail

// Value conversion; f16/bf16 go through float (double -> f16 therefore rounds twice).
template <class To, class From> CC_DEVICE To cc_cvt(From x) { return cc_detail::cvt<To, From>::run(x); }

// --- Reduction operators ------------------------------------------------------
// min/max propagate NaN (x != x is only true for NaN; folds away for integers).

struct cc_op_sum { template <class T> static CC_DEVICE T apply(T a, T b) { return a + b; } };
struct cc_op_prod { template <class T> static CC_DEVICE T apply(T a, T b) { return a * b; } };
struct cc_op_min {
  template <class T> static CC_DEVICE T apply(T a, T b) { return a != a ? a : b != b ? b : (b < a ? b : a); }
};
struct cc_op_max {
  template <class T> static CC_DEVICE T apply(T a, T b) { return a != a ? a : b != b ? b : (a < b ? b : a); }
};

// --- Sync area and buffers ----------------------------------------------------

CC_HOST_DEVICE long long cc_sync_words(int nranks, int nchannels) { return 1 + 3LL * nchannels * nranks; }
CC_HOST_DEVICE long long cc_sync_inbound(const cc_args* a, int ch, int src) {
  return 1 + (long long)ch * a->nranks + src;
}
CC_HOST_DEVICE long long cc_sync_seen(const cc_args* a, int ch, int src) {
  return cc_sync_inbound(a, ch, src) + (long long)a->nchannels * a->nranks;
}
CC_HOST_DEVICE long long cc_sync_sent(const cc_args* a, int ch, int dst) {
  return cc_sync_inbound(a, ch, dst) + 2LL * a->nchannels * a->nranks;
}

// First element of part `index` when `count` elements are split into `parts`
// nearly equal parts (index == parts gives count).
CC_HOST_DEVICE_CALLED long long cc_part_begin(long long count, long long parts, long long index) {
  return index * count / parts;
}

// Integer division and remainder rounding toward -infinity, as affine maps
// in schedules define them (emitted index expressions use these).
CC_HOST_DEVICE long long cc_floordiv(long long a, long long b) {
  long long q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
CC_HOST_DEVICE long long cc_ceildiv(long long a, long long b) { return -cc_floordiv(-a, b); }
CC_HOST_DEVICE long long cc_mod(long long a, long long b) { return a - cc_floordiv(a, b) * b; }

template <class T> CC_DEVICE T* cc_buf(const cc_args* args, int rank, int kind) {
  return (T*)args->bufs[(long long)rank * CC_NUM_BUFS + kind];
}

namespace cc_detail {
// After poll `it` of a wait that began at `start`: whether to poll again
// (after backing off); false on abort or timeout. A timeout records
// CC_ERR_TIMEOUT and raises the abort flag, so every other wait gives up
// too; an abort from elsewhere records CC_ERR_ABORTED unless an error is
// already recorded. The abort flag lives in host memory (the host raises
// it), so on a GPU each read crosses PCIe: read on every poll by every
// waiting block, it made an H200's ring kernels up to 20x slower than
// reading it once a wait has spun kSpinsBeforeAbortCheck times (as NCCL
// spins before it checks its abort flag).
constexpr unsigned kSpinsBeforeAbortCheck = 1024;
CC_DEVICE bool keep_waiting(const cc_args* args, cc_u64 start, unsigned it) {
  if (it % kSpinsBeforeAbortCheck == kSpinsBeforeAbortCheck - 1 && load_abort(args)) {
    fail(args, CC_ERR_ABORTED);
    return false;
  }
  if (args->timeout_ns && (it & 15u) == 0 && now_ns() - start > args->timeout_ns) {
    fail(args, CC_ERR_TIMEOUT);
    return false;
  }
  relax(it);
  return true;
}

// Thread 0 only. Spin until *p >= target; false on abort or timeout.
CC_DEVICE bool spin_until_geq(const cc_args* args, const cc_u64* p, cc_u64 target) {
  if (load_acquire(p) >= target) return true;
  const cc_u64 start = now_ns();
  for (unsigned it = 0;; ++it) {
    if (load_acquire(p) >= target) return true;
    if (!keep_waiting(args, start, it)) return false;
  }
}
}  // namespace cc_detail

// Announce that `rank` runs epoch args->epoch, i.e. it has left the previous
// launch and its buffers may be written by peers. Idempotent across blocks.
CC_DEVICE void cc_begin(const cc_args* args, int rank) {
  if (cc_tid() == 0) cc_detail::store_release(&args->sync[rank][0], args->epoch);
}
CC_DEVICE void cc_end(const cc_args*, int) { cc_barrier(); }

// Peer buffer, once the peer has entered this epoch (so a fast rank never
// writes into a peer still in the previous launch).
template <class T> CC_CALLED T* cc_peer_buf(const cc_args* args, int rank, int peer, int kind) {
  (void)rank;
  if (cc_tid() == 0) cc_detail::spin_until_geq(args, &args->sync[peer][0], args->epoch);
  cc_barrier();
  return cc_buf<T>(args, peer, kind);
}

// Wait for the next message from `src` on channel `ch`; its data is visible to
// the whole block afterwards. (`seen` is stored atomically: under LL,
// senders read it for flow control; a signal carries no data to order.)
CC_CALLED void cc_wait_recv(const cc_args* args, int rank, int ch, int src) {
  if (cc_tid() == 0) {
    cc_u64* s = args->sync[rank];
    const cc_u64 want = s[cc_sync_seen(args, ch, src)] + 1;
    cc_detail::store_relaxed(&s[cc_sync_seen(args, ch, src)], want);
    cc_detail::spin_until_geq(args, &s[cc_sync_inbound(args, ch, src)], want);
  }
  cc_barrier();
}

// Publish this block's writes to `dst` and count one more message to it on `ch`.
CC_CALLED void cc_post_send(const cc_args* args, int rank, int ch, int dst) {
  cc_barrier();
  if (cc_tid() == 0) {
    // The release is cumulative: after the barrier it covers the writes of
    // the whole block (NCCL: a fence, then a relaxed store). A fence before
    // it as well made an H200's small collectives 20% slower.
    const cc_u64 sent = ++args->sync[rank][cc_sync_sent(args, ch, dst)];
    cc_detail::store_release(&args->sync[dst][cc_sync_inbound(args, ch, rank)], sent);
  }
}

// --- Block-strided data movers ---------------------------------------------------

namespace cc_detail {

#ifdef CC_CUDA
// 16-byte packs: used when all arrays have the same element size and reach
// 16-byte alignment after the same number of leading elements.
template <class T> struct __align__(16) pack { T v[16 / sizeof(T)]; };

template <class D, class A, class B>
CC_DEVICE long long vector_head(const D* dst, const D* dst2, const A* a, const B* b, long long n,
                                long long& body) {
  body = 0;
  if (sizeof(A) != sizeof(D) || sizeof(B) != sizeof(D)) return n;
  const unsigned mis = (unsigned)((cc_u64)dst & 15);
  if (mis % sizeof(D) || ((cc_u64)a & 15) != mis || ((cc_u64)b & 15) != mis ||
      (dst2 && ((cc_u64)dst2 & 15) != mis))
    return n;
  const long long k = 16 / sizeof(D), head = ((16 - mis) & 15) / sizeof(D);
  if (n < head + k) return n;
  body = (n - head) / k * k;
  return head;
}

template <class F, class D, class A, class B>
CC_DEVICE void vector_body(const F& f, D* dst, D* dst2, const A* a, const B* b, long long n) {
  const int k = 16 / sizeof(D);
  for (long long p = cc_tid(); p < n / k; p += cc_nthreads()) {
    const pack<A> va = ((const pack<A>*)a)[p];
    const pack<B> vb = ((const pack<B>*)b)[p];
    pack<D> vd;
#pragma unroll
    for (int i = 0; i < k; ++i) vd.v[i] = f(va.v[i], vb.v[i]);
    ((pack<D>*)dst)[p] = vd;
    if (dst2) ((pack<D>*)dst2)[p] = vd;
  }
}

// Head or tail of a vectorised range: fewer elements than one pack, so no
// point unrolling.
template <class F, class D, class A, class B>
CC_DEVICE void edge(const F& f, D* dst, D* dst2, const A* a, const B* b, long long lo, long long hi) {
#pragma unroll 1
  for (long long i = lo + cc_tid(); i < hi; i += cc_nthreads()) {
    const D x = f(a[i], b[i]);
    dst[i] = x;
    if (dst2) dst2[i] = x;
  }
}
#endif

template <class F, class D, class A, class B>
CC_DEVICE void scalar(const F& f, D* dst, D* dst2, const A* a, const B* b, long long lo, long long hi) {
  for (long long i = lo + cc_tid(); i < hi; i += cc_nthreads()) {
    const D x = f(a[i], b[i]);
    dst[i] = x;
    if (dst2) dst2[i] = x;
  }
}

// dst[i] = f(a[i], b[i]) (also dst2[i] when dst2), i strided over the block.
// Unary movers pass b == a; the unused load is dead code.
template <class F, class D, class A, class B>
CC_CALLED void elementwise(const F f, D* dst, D* dst2, const A* a, const B* b, long long n) {
#ifdef CC_CUDA
  long long body;
  const long long head = vector_head(dst, dst2, a, b, n, body);
  if (body) {
    edge(f, dst, dst2, a, b, 0, head);
    vector_body(f, dst + head, dst2 ? dst2 + head : dst2, a + head, b + head, body);
    edge(f, dst, dst2, a, b, head + body, n);
    return;
  }
#endif
  scalar(f, dst, dst2, a, b, 0, n);
}

template <class D> struct fn_copy {
  template <class S> CC_DEVICE D operator()(S x, S) const { return cc_cvt<D>(x); }
};
template <class OP, class D> struct fn_reduce {
  long long divisor;
  template <class A, class B> CC_DEVICE D operator()(A a, B b) const {
    typedef cc_acc_t<D> Acc;
    Acc x = OP::apply(cc_cvt<Acc>(a), cc_cvt<Acc>(b));
    if (divisor != 1) x = x / (Acc)divisor;
    return cc_cvt<D>(x);
  }
};
template <class D> struct fn_scale {
  long long divisor;
  CC_DEVICE D operator()(D x, D) const {
    typedef cc_acc_t<D> Acc;
    return cc_cvt<D>(cc_cvt<Acc>(x) / (Acc)divisor);
  }
};

}  // namespace cc_detail

// dst[i] = cvt(src[i])
template <class D, class S> CC_DEVICE void cc_copy(D* dst, const S* src, long long n) {
  cc_detail::elementwise(cc_detail::fn_copy<D>(), dst, (D*)0, src, src, n);
}

// dst[i] (and dst2[i] unless null) = cvt(OP(acc(a[i]), acc(b[i])) [/ divisor]),
// computed in cc_acc_t<D>.
template <class OP, class D, class A, class B>
CC_DEVICE void cc_reduce(D* dst, typename cc_type_identity<D>::type* dst2, const A* a, const B* b,
                         long long n, long long divisor) {
  cc_detail::fn_reduce<OP, D> f;
  f.divisor = divisor;
  cc_detail::elementwise(f, dst, dst2, a, b, n);
}

// dst[i] /= divisor
template <class D> CC_DEVICE void cc_scale(D* dst, long long n, long long divisor) {
  cc_detail::fn_scale<D> f;
  f.divisor = divisor;
  cc_detail::elementwise(f, dst, (D*)0, (const D*)dst, (const D*)dst, n);
}

// --- NVLS: reductions and stores in the NVSwitch --------------------------------
// multimem steps read and write a buffer of every rank through the switch: a
// load returns the reduction of that element over every rank's buffer, a
// store lands in every rank's buffer. On CUDA the caller's buffers are bound
// to multicast objects (args->multicast: their addresses on each rank's GPU)
// and these are multimem instructions (sm_90); the host backend reads and
// writes every rank's buffer (args->bufs) itself. The compiler emits only the
// types and operators the switch has (sched::multimemReduces).

namespace cc_detail {

#ifdef CC_CUDA
// The switch works on 32- or 64-bit words: one element, or two f16/bf16.
// multimem<OP, T>: the word type and the PTX type suffix of its
// load-reduce, alone and (float types) four words at once.
template <class OP, class T> struct multimem;
#define CC_MULTIMEM(OP, T, WORD, PTX, PTX4)                       \
  template <> struct multimem<OP, T> {                            \
    typedef WORD word;                                            \
    static constexpr const char one[] = PTX;                      \
    static constexpr const char four[] = PTX4;                    \
  };
CC_MULTIMEM(cc_op_sum, float, unsigned, "add.f32", "add.v4.f32")
CC_MULTIMEM(cc_op_sum, double, cc_u64, "add.f64", "")
CC_MULTIMEM(cc_op_sum, cc_f16, unsigned, "add.acc::f32.f16x2", "add.acc::f32.v4.f16x2")
CC_MULTIMEM(cc_op_min, cc_f16, unsigned, "min.f16x2", "min.v4.f16x2")
CC_MULTIMEM(cc_op_max, cc_f16, unsigned, "max.f16x2", "max.v4.f16x2")
CC_MULTIMEM(cc_op_sum, cc_bf16, unsigned, "add.acc::f32.bf16x2", "add.acc::f32.v4.bf16x2")
CC_MULTIMEM(cc_op_min, cc_bf16, unsigned, "min.bf16x2", "min.v4.bf16x2")
CC_MULTIMEM(cc_op_max, cc_bf16, unsigned, "max.bf16x2", "max.v4.bf16x2")
CC_MULTIMEM(cc_op_sum, int, unsigned, "add.s32", "")
CC_MULTIMEM(cc_op_min, int, unsigned, "min.s32", "")
CC_MULTIMEM(cc_op_max, int, unsigned, "max.s32", "")
CC_MULTIMEM(cc_op_sum, unsigned, unsigned, "add.u32", "")
CC_MULTIMEM(cc_op_min, unsigned, unsigned, "min.u32", "")
CC_MULTIMEM(cc_op_max, unsigned, unsigned, "max.u32", "")
CC_MULTIMEM(cc_op_sum, long long, cc_u64, "add.u64", "")  // two's complement: there is no add.s64
CC_MULTIMEM(cc_op_min, long long, cc_u64, "min.s64", "")
CC_MULTIMEM(cc_op_max, long long, cc_u64, "max.s64", "")
CC_MULTIMEM(cc_op_sum, unsigned long long, cc_u64, "add.u64", "")
CC_MULTIMEM(cc_op_min, unsigned long long, cc_u64, "min.u64", "")
CC_MULTIMEM(cc_op_max, unsigned long long, cc_u64, "max.u64", "")
#undef CC_MULTIMEM

template <class M> CC_DEVICE unsigned mm_load(const unsigned* p) {
  unsigned v;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.%1 %0, [%2];" : "=r"(v) : "C"(M::one), "l"(p) : "memory");
  return v;
}
template <class M> CC_DEVICE cc_u64 mm_load(const cc_u64* p) {
  cc_u64 v;
  asm volatile("multimem.ld_reduce.relaxed.sys.global.%1 %0, [%2];" : "=l"(v) : "C"(M::one), "l"(p) : "memory");
  return v;
}
template <class M> CC_DEVICE void mm_load4(const unsigned* p, unsigned* v) {
  asm volatile("multimem.ld_reduce.relaxed.sys.global.%4 {%0, %1, %2, %3}, [%5];"
               : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "C"(M::four), "l"(p) : "memory");
}
CC_DEVICE void mm_store(unsigned* p, unsigned v) {
  asm volatile("multimem.st.relaxed.sys.global.b32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
CC_DEVICE void mm_store(cc_u64* p, cc_u64 v) {
  asm volatile("multimem.st.relaxed.sys.global.b64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
CC_DEVICE void mm_store4(unsigned* p, const unsigned* v) {
  asm volatile("multimem.st.relaxed.sys.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v[0]),
               "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
}
// Orders accesses to a buffer through its unicast and multicast addresses
// (a rank writes it through the one, the switch reads the other).
CC_DEVICE void fence_alias() { asm volatile("fence.proxy.alias;" ::: "memory"); }

// Words [w0, w1) of a part over the block's threads: `group(w)` for words
// w..w+3 from the first 16-byte boundary on where `Four` (and the words
// are 32-bit), `one(w)` for the rest.
template <bool Four, class W, class One, class Group>
CC_DEVICE void for_words(long long w0, long long w1, const One& one, const Group& group) {
  long long a = w1, body = 0;
  if (Four && sizeof(W) == 4) {
    a = (w0 + 3) / 4 * 4;
    if (a > w1) a = w1;
    body = (w1 - a) / 4 * 4;
  }
  for (long long w = w0 + cc_tid(); w < a; w += cc_nthreads()) one(w);
  for (long long w = a + 4LL * cc_tid(); w < a + body; w += 4LL * cc_nthreads()) group(w);
  for (long long w = a + body + cc_tid(); w < w1; w += cc_nthreads()) one(w);
}
#endif

template <class T> CC_DEVICE T scaled(T x, long long divisor) {
  typedef cc_acc_t<T> Acc;
  return divisor == 1 ? x : cc_cvt<T>(cc_cvt<Acc>(x) / (Acc)divisor);
}

}  // namespace cc_detail

template <class T> CC_DEVICE T* cc_multicast_buf(const cc_args* args, int rank, int kind) {
  return (T*)args->multicast[(long long)rank * CC_NUM_BUFS + kind];
}

// The ranks a multimem step of `rank` reaches: its block of `group`
// consecutive ranks (on CUDA, those bound to its multicast object), or
// every rank where `group` is 0.
CC_HOST_DEVICE int cc_switch_first(int rank, int group) { return group ? rank - rank % group : 0; }
CC_HOST_DEVICE int cc_switch_count(const cc_args* args, int group) { return group ? group : args->nranks; }

// dst[i] = OP over the reached ranks' buffer `kind` at [offset + i] (/ divisor), i < n.
template <class OP, class T>
CC_DEVICE void cc_multimem_reduce(const cc_args* args, int rank, int kind, T* dst, long long offset,
                                  long long n, long long divisor, int group = 0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // multimem is sm_90's; the runtime binds multicast memory only there
#elif defined(CC_CUDA)
  typedef cc_detail::multimem<OP, T> M;
  typedef typename M::word W;
  constexpr long long per = sizeof(W) / sizeof(T);
  W* const mc = cc_multicast_buf<W>(args, rank, kind);
  // A word's elements that lie in the part (a pair at an edge has one).
  auto put = [&](long long w, W v) {
    const T* e = (const T*)&v;
    for (long long j = 0; j < per; ++j) {
      long long i = w * per + j - offset;
      if (i >= 0 && i < n) dst[i] = cc_detail::scaled(e[j], divisor);
    }
  };
  cc_detail::fence_alias();
  cc_detail::for_words<sizeof(M::four) != 1, W>(
      offset / per, (offset + n + per - 1) / per, [&](long long w) { put(w, cc_detail::mm_load<M>(mc + w)); },
      [&](long long w) {
        if constexpr (sizeof(M::four) != 1) {
          unsigned v[4];
          cc_detail::mm_load4<M>((const unsigned*)(mc + w), v);
          for (int j = 0; j < 4; ++j) put(w + j, v[j]);
        }
      });
#else
  typedef cc_acc_t<T> Acc;
  const int first = cc_switch_first(rank, group), end = first + cc_switch_count(args, group);
  for (long long i = 0; i < n; ++i) {
    Acc acc = cc_cvt<Acc>(cc_buf<T>(args, first, kind)[offset + i]);
    for (int q = first + 1; q < end; ++q)
      acc = OP::apply(acc, cc_cvt<Acc>(cc_buf<T>(args, q, kind)[offset + i]));
    dst[i] = cc_detail::scaled(cc_cvt<T>(acc), divisor);
  }
#endif
}

// The reached ranks' buffer `kind` at [offset + i] = src[i], i < n.
template <class T>
CC_DEVICE void cc_multimem_store(const cc_args* args, int rank, int kind, long long offset, const T* src,
                                 long long n, int group = 0) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();
#elif defined(CC_CUDA)
  typedef typename cc_detail::multimem<cc_op_sum, T>::word W;  // every type the switch has sums
  constexpr long long per = sizeof(W) / sizeof(T);
  W* const mc = cc_multicast_buf<W>(args, rank, kind);
  cc_barrier();  // `src` was written by other threads' words (the reduce before)
  auto word = [&](long long w) {
    W v;
    T* e = (T*)&v;
    for (long long j = 0; j < per; ++j) e[j] = src[w * per + j - offset];
    return v;
  };
  // Whole words through the switch; a lone f16/bf16 at an edge (the switch
  // stores no 16-bit word) into every rank's buffer directly.
  const long long w0 = (offset + per - 1) / per, w1 = (offset + n) / per;
  cc_detail::for_words<true, W>(
      w0, w1, [&](long long w) { cc_detail::mm_store(mc + w, word(w)); },
      [&](long long w) {
        unsigned v[4];
        for (int j = 0; j < 4; ++j) v[j] = (unsigned)word(w + j);
        cc_detail::mm_store4((unsigned*)(mc + w), v);
      });
  const int first = cc_switch_first(rank, group), end = first + cc_switch_count(args, group);
  if (per > 1 && cc_tid() == 0)
    for (int q = first; q < end; ++q) {
      T* peer = cc_buf<T>(args, q, kind);
      if (offset < w0 * per && n > 0) peer[offset] = src[0];
      if (w1 * per < offset + n && w1 * per >= w0 * per) peer[offset + n - 1] = src[n - 1];
    }
  cc_detail::fence_alias();
#else
  const int first = cc_switch_first(rank, group), end = first + cc_switch_count(args, group);
  for (int q = first; q < end; ++q)
    for (long long i = 0; i < n; ++i) cc_buf<T>(args, q, kind)[offset + i] = src[i];
#endif
}

// --- LL and LL128 protocols ---------------------------------------------------

// The mailbox starts at the first 128-byte boundary after the counters (an
// LL128 line must be one aligned 128-byte segment; the sync areas themselves
// are allocated aligned).
CC_HOST_DEVICE long long cc_mailbox_begin(int nranks, int nchannels) {
  return (cc_sync_words(nranks, nchannels) + 15) / 16 * 16;
}
// Bytes of a rank's sync area: the counters, then a mailbox of
// `mailbox_bytes` (0: none, no padding).
CC_HOST_DEVICE long long cc_sync_bytes(int nranks, int nchannels, long long mailbox_bytes) {
  return 8 * (mailbox_bytes ? cc_mailbox_begin(nranks, nchannels) : cc_sync_words(nranks, nchannels)) +
         mailbox_bytes;
}

// The box's type names the line format; the send and receive functions
// below are overloaded on it, so emitted calls are the same under both.
struct cc_ll_box {
  long long slots;     // per (channel, src): messages of one launch
  long long lines;     // 8-byte lines {data32, flag32} per slot (even)
  long long regions;   // per channel
  const int* senders;  // per (channel, owner): who has which region
};
struct cc_ll128_box {
  long long slots;
  long long lines;  // 128-byte lines {15 data words, flag word} per slot
  long long regions;
  const int* senders;
};

namespace cc_detail {

CC_HOST_DEVICE long long ll_line_words(cc_ll_box) { return 1; }
CC_HOST_DEVICE long long ll_line_words(cc_ll128_box) { return 16; }

}  // namespace cc_detail

namespace cc_detail {

#ifdef CC_CUDA
// One 8-byte access carries data and flag together (NCCL's LL lines).
CC_DEVICE void ll_store(cc_u64* line, unsigned data, unsigned flag) {
  asm volatile("st.volatile.global.v2.u32 [%0], {%1, %2};" ::"l"(line), "r"(data), "r"(flag) : "memory");
}
CC_DEVICE void ll_load(const cc_u64* line, unsigned& data, unsigned& flag) {
  asm volatile("ld.volatile.global.v2.u32 {%0, %1}, [%2];" : "=r"(data), "=r"(flag) : "l"(line) : "memory");
}

// LL128 (NCCL's): lane l of 8 writes words 2l, 2l + 1 of a 128-byte line in
// one 16-byte store, lane 7's second word being the flag, and the 32 lanes
// of a warp store 4 whole lines in one instruction. What is relied on, as
// NCCL's LL128 does (and enables it only where it holds: NVLink, sm_70+):
// an aligned 128-byte segment written by one warp store instruction is seen
// whole by a warp load instruction that reads it, never part old, part new,
// locally and over NVLink. The PTX memory model does not promise it (it is
// a property of the hardware), and this code has never run on a GPU.
// __syncwarp: the lanes of a line are converged, so they store (and load)
// in one instruction; callers keep the trip count warp-uniform.
CC_DEVICE void ll128_store(cc_u64* line, int lane, const cc_u64* w, bool valid) {
  __syncwarp();
  if (valid)
    asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(line + 2 * lane), "l"(w[0]), "l"(w[1])
                 : "memory");
}
// Whether the line carried `flag` as far as this lane knows: only lane 7
// reads the flag; the others trust the warp vote over the same load.
CC_DEVICE bool ll128_load(const cc_u64* line, int lane, cc_u64* w, cc_u64 flag, bool valid) {
  __syncwarp();
  if (!valid) return true;
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(w[0]), "=l"(w[1]) : "l"(line + 2 * lane) : "memory");
  return lane != 7 || w[1] == flag;
}
CC_DEVICE bool warp_any(bool x) { return __any_sync(0xffffffffu, x); }
#else
CC_DEVICE void ll_store(cc_u64* line, unsigned data, unsigned flag) {
  __atomic_store_n(line, ((cc_u64)flag << 32) | data, __ATOMIC_RELAXED);
}
CC_DEVICE void ll_load(const cc_u64* line, unsigned& data, unsigned& flag) {
  const cc_u64 v = __atomic_load_n(line, __ATOMIC_RELAXED);
  data = (unsigned)v;
  flag = (unsigned)(v >> 32);
}

// One thread writes a line's pieces in order, so the flag (released, last)
// publishes the 15 data words; a reader acquires the flag before any word.
CC_DEVICE void ll128_store(cc_u64* line, int lane, const cc_u64* w, bool valid) {
  if (!valid) return;
  __atomic_store_n(line + 2 * lane, w[0], __ATOMIC_RELAXED);
  __atomic_store_n(line + 2 * lane + 1, w[1], lane == 7 ? __ATOMIC_RELEASE : __ATOMIC_RELAXED);
}
CC_DEVICE bool ll128_load(const cc_u64* line, int lane, cc_u64* w, cc_u64 flag, bool valid) {
  if (!valid) return true;
  if (__atomic_load_n(line + 15, __ATOMIC_ACQUIRE) != flag) return false;
  w[0] = __atomic_load_n(line + 2 * lane, __ATOMIC_RELAXED);
  w[1] = __atomic_load_n(line + 2 * lane + 1, __ATOMIC_RELAXED);
  return true;
}
CC_DEVICE bool warp_any(bool x) { return x; }
#endif

// Slot of message `seq` from `src` to `owner` on `ch`, in owner's mailbox.
template <class Box>
CC_DEVICE cc_u64* ll_slot(const cc_args* a, Box box, int owner, int ch, int src, cc_u64 seq) {
  const long long slot = (long long)((seq - 1) % (cc_u64)box.slots);
  long long region = box.regions == 1 ? 0 : src;
  if (box.senders) {
    const int* s = box.senders + ((long long)ch * a->nranks + owner) * box.regions;
    for (region = 0; s[region] != src; ++region) {
    }
  }
  return a->sync[owner] + cc_mailbox_begin(a->nranks, a->nchannels) +
         (((long long)ch * box.regions + region) * box.slots + slot) * box.lines * ll_line_words(box);
}

// Number of the next message to `dst` on `ch`, once its slot is free (the
// receiver's seen counter has passed the slot's previous message).
template <class Box> CC_DEVICE cc_u64 ll_send_seq(const cc_args* args, Box box, int rank, int ch, int dst) {
  cc_u64* sent = &args->sync[rank][cc_sync_sent(args, ch, dst)];
  cc_barrier();  // a previous step's counter update is visible to every thread
  const cc_u64 seq = *(volatile cc_u64*)sent + 1;
  cc_barrier();
  if (cc_tid() == 0) {
    *sent = seq;
    if (seq > (cc_u64)box.slots)
      spin_until_geq(args, &args->sync[dst][cc_sync_seen(args, ch, rank)], seq - box.slots);
  }
  cc_barrier();
  return seq;
}

// Number of the next message from `src` on `ch`.
CC_DEVICE cc_u64 ll_recv_seq(const cc_args* args, int rank, int ch, int src) {
  cc_barrier();
  const cc_u64 seq = *(volatile cc_u64*)&args->sync[rank][cc_sync_seen(args, ch, src)] + 1;
  cc_barrier();
  return seq;
}

// Message `seq` from `src` was copied out: its slot is free for the sender.
CC_DEVICE void ll_recv_done(const cc_args* args, int rank, int ch, int src, cc_u64 seq) {
  cc_barrier();
  if (cc_tid() == 0) {
    // Released after the barrier: the block's reads of the slot come first.
    store_release(&args->sync[rank][cc_sync_seen(args, ch, src)], seq);
  }
  cc_barrier();
}

// The data of `line` once it carries `flag`; 0 on abort or timeout (recorded).
CC_DEVICE unsigned ll_wait(const cc_args* args, const cc_u64* line, unsigned flag) {
  unsigned data, f;
  ll_load(line, data, f);
  if (f == flag) return data;
  const cc_u64 start = now_ns();
  for (unsigned it = 0;; ++it) {
    ll_load(line, data, f);
    if (f == flag) return data;
    if (!keep_waiting(args, start, it)) return 0;
  }
}

// Piece `lane` (words 2 lane, 2 lane + 1) of an LL128 line carrying `flag`.
// On CUDA the whole warp polls until each of its lines carries its flag,
// every lane re-reading its piece (a line is only whole as one load).
// False on abort or timeout (recorded).
CC_DEVICE bool ll128_wait(const cc_args* args, const cc_u64* line, int lane, cc_u64* w, cc_u64 flag, bool valid) {
  if (!warp_any(!ll128_load(line, lane, w, flag, valid))) return true;
  const cc_u64 start = now_ns();
  for (unsigned it = 0;; ++it) {
    if (!warp_any(!ll128_load(line, lane, w, flag, valid))) return true;
    if (warp_any(!keep_waiting(args, start, it))) return false;
  }
}

CC_DEVICE void copy_bytes(unsigned char* dst, const unsigned char* src, int n) {
  for (int i = 0; i < n; ++i) dst[i] = src[i];
}

template <int Bytes> struct uint_of;
template <> struct uint_of<1> { typedef unsigned char type; };
template <> struct uint_of<2> { typedef unsigned short type; };
template <> struct uint_of<4> { typedef unsigned type; };
template <> struct uint_of<8> { typedef cc_u64 type; };

// Elements [i, i + k) (k <= Max, those below n) of f(a, b) as D, packed into
// w (zeroed). Unrolled up to Max with shifts, so w stays in registers.
template <int Max, class D, class F, class A, class B>
CC_DEVICE void ll_pack(cc_u64* w, const F& f, const A* a, const B* b, long long i, int k, long long n) {
  typedef typename uint_of<sizeof(D)>::type U;
  CC_UNROLL
  for (int j = 0; j < Max; ++j)
    if (j < k && i + j < n) {
      const D v = f(a[i + j], b[i + j]);
      U u;
      copy_bytes((unsigned char*)&u, (const unsigned char*)&v, (int)sizeof(D));
      w[j * sizeof(D) / 8] |= (cc_u64)u << (8 * (j * sizeof(D) % 8));
    }
}

// Elements [i, i + k) (k <= Max, those below n) of dst out of w.
template <int Max, class D> CC_DEVICE void ll_unpack(D* dst, const cc_u64* w, long long i, int k, long long n) {
  typedef typename uint_of<sizeof(D)>::type U;
  CC_UNROLL
  for (int j = 0; j < Max; ++j)
    if (j < k && i + j < n) {
      const U u = (U)(w[j * sizeof(D) / 8] >> (8 * (j * sizeof(D) % 8)));
      D v;
      copy_bytes((unsigned char*)&v, (const unsigned char*)&u, (int)sizeof(D));
      dst[i + j] = v;
    }
}

// LL128 lines of a message of `bytes`: 120 data bytes each. A piece is one
// lane's 16 bytes (8 of data for lane 7); 120 and 16 are multiples of every
// element size, so no element straddles pieces.
CC_DEVICE long long ll128_pieces(long long bytes) { return (bytes + 119) / 120 * 8; }
template <class D> CC_DEVICE long long ll128_first(long long piece) {
  return (piece / 8 * 120 + piece % 8 * 16) / (long long)sizeof(D);
}
template <class D> CC_DEVICE int ll128_count(long long piece) { return (piece % 8 == 7 ? 8 : 16) / (int)sizeof(D); }

}  // namespace cc_detail

// Sends f(a[i], b[i]) as n elements of D (1, 2, 4 or 8 bytes) to `dst` on
// `ch`: LL packs them into 4-byte data words, each in a line with the
// message's flag.
template <class D, class F, class A, class B>
CC_DEVICE void cc_ll_put(const cc_args* args, cc_ll_box box, int rank, int ch, int dst, const F& f,
                         const A* a, const B* b, long long n) {
  const cc_u64 seq = cc_detail::ll_send_seq(args, box, rank, ch, dst);
  cc_u64* line = cc_detail::ll_slot(args, box, dst, ch, rank, seq);
  const unsigned flag = (unsigned)seq;
  const long long bytes = n * (long long)sizeof(D), groups = (bytes + 7) / 8;
  const int per = 8 / (int)sizeof(D);
  for (long long g = cc_tid(); g < groups; g += cc_nthreads()) {
    cc_u64 w = 0;
    cc_detail::ll_pack<8 / sizeof(D), D>(&w, f, a, b, g * per, per, n);
    cc_detail::ll_store(line + 2 * g, (unsigned)w, flag);
    if (8 * g + 4 < bytes) cc_detail::ll_store(line + 2 * g + 1, (unsigned)(w >> 32), flag);
  }
}

// LL128: 120 bytes of elements and the message's number in each 128-byte line.
template <class D, class F, class A, class B>
CC_DEVICE void cc_ll_put(const cc_args* args, cc_ll128_box box, int rank, int ch, int dst, const F& f,
                         const A* a, const B* b, long long n) {
  const cc_u64 seq = cc_detail::ll_send_seq(args, box, rank, ch, dst);
  cc_u64* slot = cc_detail::ll_slot(args, box, dst, ch, rank, seq);
  const long long pieces = cc_detail::ll128_pieces(n * (long long)sizeof(D));
  // The same trip count for every thread (ll128_store syncs the warp).
  for (long long base = 0; base < pieces; base += cc_nthreads()) {
    const long long p = base + cc_tid();
    const int lane = (int)(p % 8);
    cc_u64 w[2] = {0, 0};
    if (p < pieces)
      cc_detail::ll_pack<16 / sizeof(D), D>(w, f, a, b, cc_detail::ll128_first<D>(p),
                                                 cc_detail::ll128_count<D>(p), n);
    if (lane == 7) w[1] = seq;
    cc_detail::ll128_store(slot + p / 8 * 16, lane, w, p < pieces);
  }
}

// dst[i] = cvt<D>(src[i]) in `to`'s mailbox.
template <class D, class Box, class S>
CC_DEVICE void cc_ll_send(const cc_args* args, Box box, int rank, int ch, int to, const S* src, long long n) {
  cc_ll_put<D>(args, box, rank, ch, to, cc_detail::fn_copy<D>(), src, src, n);
}

// cvt<D>(OP(a[i], b[i]) [/ divisor]) in `to`'s mailbox, as cc_reduce computes it.
template <class OP, class D, class Box, class A, class B>
CC_DEVICE void cc_ll_send_reduce(const cc_args* args, Box box, int rank, int ch, int to, const A* a, const B* b,
                                 long long n, long long divisor) {
  cc_detail::fn_reduce<OP, D> f;
  f.divisor = divisor;
  cc_ll_put<D>(args, box, rank, ch, to, f, a, b, n);
}

// Waits for the next message from `src` on `ch` line by line and copies its
// n elements into dst; then tells the sender the slot is free.
template <class D>
CC_DEVICE void cc_ll_recv(const cc_args* args, cc_ll_box box, int rank, int ch, int src, D* dst, long long n) {
  const cc_u64 seq = cc_detail::ll_recv_seq(args, rank, ch, src);
  const cc_u64* line = cc_detail::ll_slot(args, box, rank, ch, src, seq);
  const unsigned flag = (unsigned)seq;
  const long long bytes = n * (long long)sizeof(D), groups = (bytes + 7) / 8;
  const int per = 8 / (int)sizeof(D);
  for (long long g = cc_tid(); g < groups; g += cc_nthreads()) {
    cc_u64 w = cc_detail::ll_wait(args, line + 2 * g, flag);
    if (8 * g + 4 < bytes) w |= (cc_u64)cc_detail::ll_wait(args, line + 2 * g + 1, flag) << 32;
    cc_detail::ll_unpack<8 / sizeof(D)>(dst, &w, g * per, per, n);
  }
  cc_detail::ll_recv_done(args, rank, ch, src, seq);
}

template <class D>
CC_DEVICE void cc_ll_recv(const cc_args* args, cc_ll128_box box, int rank, int ch, int src, D* dst, long long n) {
  const cc_u64 seq = cc_detail::ll_recv_seq(args, rank, ch, src);
  const cc_u64* slot = cc_detail::ll_slot(args, box, rank, ch, src, seq);
  const long long pieces = cc_detail::ll128_pieces(n * (long long)sizeof(D));
  for (long long base = 0; base < pieces; base += cc_nthreads()) {  // warp-uniform, as in cc_ll_put
    const long long p = base + cc_tid();
    cc_u64 w[2] = {0, 0};
    cc_detail::ll128_wait(args, slot + p / 8 * 16, (int)(p % 8), w, seq, p < pieces);
    if (p < pieces)
      cc_detail::ll_unpack<16 / sizeof(D)>(dst, w, cc_detail::ll128_first<D>(p), cc_detail::ll128_count<D>(p), n);
  }
  cc_detail::ll_recv_done(args, rank, ch, src, seq);
}

#endif  // CCOPT_DEVICE_H

// Hand-written kernels over ccopt/device.h, used by the host and NVRTC tests.
#pragma once

namespace ccopt::rt::test {

// Ring all-reduce (reduce-scatter, then all-gather) with parts = nranks *
// nchannels: channel ch of rank r handles sub-part ch of every chunk. Every
// chunk lands in a distinct place of the peer's scratch / output, so no slot
// is reused within a launch and no flow control is needed.
inline const char* const kTestKernelsSource = R"CCSRC(#include "ccopt/device.h"

template <class T, long long COUNT>
CC_DEVICE void ring_allreduce(const cc_args* args, const int r, const int ch) {
  const int n = args->nranks;
  const long long parts = (long long)n * args->nchannels;
  cc_begin(args, r);
  T* in = cc_buf<T>(args, r, CC_BUF_INPUT);
  T* out = cc_buf<T>(args, r, CC_BUF_OUTPUT);
  T* scratch = cc_buf<T>(args, r, CC_BUF_SCRATCH);
  if (n == 1) {
    const long long b = cc_part_begin(COUNT, parts, ch), e = cc_part_begin(COUNT, parts, ch + 1);
    cc_copy(out + b, in + b, e - b);
    cc_end(args, r);
    return;
  }
  const int from = (r - 1 + n) % n, to = (r + 1) % n;
  T* peer_scratch = cc_peer_buf<T>(args, r, to, CC_BUF_SCRATCH);
  T* peer_out = cc_peer_buf<T>(args, r, to, CC_BUF_OUTPUT);
  // Reduce-scatter: step s sends the partial sum of chunk r - s.
  for (int s = 0; s < n - 1; ++s) {
    const long long c = ((r - s) % n + n) % n;
    const long long b = cc_part_begin(COUNT, parts, c * args->nchannels + ch);
    const long long e = cc_part_begin(COUNT, parts, c * args->nchannels + ch + 1);
    if (s == 0) {
      cc_copy(peer_scratch + b, in + b, e - b);
    } else {
      cc_wait_recv(args, r, ch, from);
      cc_reduce<cc_op_sum>(peer_scratch + b, (T*)nullptr, (const T*)(in + b), (const T*)(scratch + b), e - b, 1);
    }
    cc_post_send(args, r, ch, to);
  }
  // All-gather: step 0 finishes chunk r + 1 here and on `to`, step k forwards chunk r + 1 - k.
  for (int k = 0; k < n - 1; ++k) {
    const long long c = ((r + 1 - k) % n + n) % n;
    const long long b = cc_part_begin(COUNT, parts, c * args->nchannels + ch);
    const long long e = cc_part_begin(COUNT, parts, c * args->nchannels + ch + 1);
    cc_wait_recv(args, r, ch, from);
    if (k == 0)
      cc_reduce<cc_op_sum>(out + b, peer_out + b, (const T*)(in + b), (const T*)(scratch + b), e - b, 1);
    else
      cc_copy(peer_out + b, (const T*)(out + b), e - b);
    cc_post_send(args, r, ch, to);
  }
  cc_wait_recv(args, r, ch, from);  // chunk r + 2, the last one
  cc_end(args, r);
}

#define RING(T, COUNT) \
  CC_KERNEL(ring_##T##_##COUNT) { ring_allreduce<T, COUNT>(args, CC_RANK, CC_CHANNEL); }
RING(float, 1)
RING(float, 7)
RING(float, 4096)
RING(int, 1)
RING(int, 7)
RING(int, 4096)
RING(cc_f16, 1)
RING(cc_f16, 7)
RING(cc_f16, 4096)

// Waits for a message from the next rank that is never sent.
CC_KERNEL(wait_forever) {
  const int r = CC_RANK;
  cc_begin(args, r);
  cc_wait_recv(args, r, CC_CHANNEL, (r + 1) % args->nranks);
  cc_end(args, r);
}

// Exercises the remaining movers and ops so every backend instantiates them.
CC_KERNEL(movers) {
  const int r = CC_RANK;
  cc_begin(args, r);
  float* in = cc_buf<float>(args, r, CC_BUF_INPUT);
  float* out = cc_buf<float>(args, r, CC_BUF_OUTPUT);
  cc_bf16* s16 = cc_buf<cc_bf16>(args, r, CC_BUF_SCRATCH);
  cc_copy(s16, (const float*)in, 64);                                 // f32 -> bf16 (wire)
  cc_reduce<cc_op_max>(out, (float*)nullptr, (const float*)in, (const cc_bf16*)s16, 64, 1);
  cc_reduce<cc_op_min>(out + 64, out + 128, (const float*)in, (const float*)in, 64, 1);
  cc_reduce<cc_op_prod>(out + 192, nullptr, (const float*)in, (const float*)in, 64, 2);
  cc_scale(out, 64, 4);
  cc_end(args, r);
}
)CCSRC";

}  // namespace ccopt::rt::test

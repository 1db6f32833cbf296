// The hand-written schedules of examples/schedules: a module of sched.programs
// alone, verified against the machine, reported, traced and emitted.

// RUN: ccopt %examples/schedules/two-level-allgather-a100x8x2.mlir --topo a100x8 --nodes 2 --sched-verify | FileCheck %s --check-prefix=AG-VERIFY
// AG-VERIFY: sched.program @two_level_all_gather
// AG-VERIFY-SAME: collective = #ccl<collective all_gather>
// AG-VERIFY-COUNT-16: sched.task channel

// RUN: ccopt %examples/schedules/two-level-allgather-a100x8x2.mlir --topo a100x8 --nodes 2 --emit=report | FileCheck %s --check-prefix=AG-REPORT
// AG-REPORT: # ccopt report: a100x8, 2 node(s), 16 ranks;
// AG-REPORT: 268435456 67108864 f32 none two_level Simple 16 1 {{[0-9.]+ [0-9.]+ [0-9.]+}} ring/{{[A-Za-z0-9]+}} {{[0-9.]+ [0-9.]+ [0-9.]+}} {{1\.[0-9]+}} {{0\.[0-9]+}}
// AG-REPORT-SAME: all_gather
// RUN: ccopt %examples/schedules/two-level-allgather-a100x8x2.mlir --topo a100x8 --nodes 2 --emit=report --report-format=json | python3 -c "import json,sys; r=json.load(sys.stdin)['rows']; assert len(r) == 1 and r[0]['collective'] == 'all_gather', r; r=r[0]; assert r['nccl_time_us'] > r['time_us'] >= r['bound_time_us'] > 0, r"

// RUN: ccopt %examples/schedules/two-level-allgather-a100x8x2.mlir --topo a100x8 --nodes 2 --emit=trace | FileCheck %s --check-prefix=AG-TRACE
// AG-TRACE: "traceEvents"
// AG-TRACE: two_level_all_gather: rank 15

// RUN: ccopt %examples/schedules/two-level-allgather-a100x8x2.mlir --topo a100x8 --nodes 2 --emit=cuda | FileCheck %s --check-prefix=AG-CUDA
// AG-CUDA: // ccopt-schedule kernel=ccopt_two_level_all_gather collective=all_gather redop=none ranks=16 channels=16
// Its 16 channel tasks (alike but for their part offsets, in two kinds)
// share two bodies.
// AG-CUDA: CC_TABLE int ccopt_two_level_all_gather_rows[] = {0, 0,
// AG-CUDA: CC_KERNEL(ccopt_two_level_all_gather) {
// AG-CUDA: if (row >= 0 && row < 8) { // 8 tasks alike
// AG-CUDA: if (row >= 8 && row < 16) { // 8 tasks alike
// AG-CUDA: cc_end(args, rank);

// Without the second node, rank 8 is not on the machine.
// RUN: not ccopt %examples/schedules/two-level-allgather-a100x8x2.mlir --topo a100x8 --sched-verify 2>&1 | FileCheck %s --check-prefix=AG-ONE-NODE
// AG-ONE-NODE: error: rank {{[0-9]+}}, channel {{[0-9]+}}, step {{[0-9]+}}: sends to rank {{[0-9]+}}, but rank {{[0-9]+}} is not on a100x8 (8 GPUs)

// RUN: ccopt %examples/schedules/recursive-halving-reduce-scatter-v100x4.mlir --topo v100x8 --sched-verify | FileCheck %s --check-prefix=RS-VERIFY
// RS-VERIFY: sched.program @recursive_halving_reduce_scatter
// RS-VERIFY-COUNT-12: sched.task channel {{[0-2]}} rank {{[0-3]}}

// RUN: ccopt %examples/schedules/recursive-halving-reduce-scatter-v100x4.mlir --topo v100x8 --emit=report | FileCheck %s --check-prefix=RS-REPORT
// RS-REPORT: # ccopt report: v100x8, 1 node(s), 8 ranks;
// RS-REPORT: 4194304 1048576 f32 sum recursive_halving Simple 3 1
// RS-REPORT-SAME: reduce_scatter

// RUN: ccopt %examples/schedules/recursive-halving-reduce-scatter-v100x4.mlir --topo v100x8 --emit=cuda | FileCheck %s --check-prefix=RS-CUDA
// Its twelve tasks differ only in peers and parts: one body over a table.
// RS-CUDA: CC_TABLE int ccopt_recursive_halving_reduce_scatter_rows[] = {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11};
// RS-CUDA: CC_KERNEL(ccopt_recursive_halving_reduce_scatter) {
// RS-CUDA: if (row >= 0 && row < 12) { // 12 tasks alike
// RS-CUDA: const long long from = k[{{[0-9]+}}];
// RS-CUDA: cc_wait_recv(args, rank, ch, from);
// RS-CUDA: cc_reduce<
// RS-CUDA-NOT: rank ==
// RS-CUDA: cc_end(args, rank);

// Its links = "nvlink" holds on the quad of GPUs 0-3, not on GPUs 4-7 placed
// as 0, 5, 6, 7 (GPU 0 reaches 5-7 only through PCIe).
// RUN: sed 's/links = "nvlink"/links = "nvlink", rank_map = array<i64: 0, 5, 6, 7>/' %examples/schedules/recursive-halving-reduce-scatter-v100x4.mlir | not ccopt - --topo v100x8 --sched-verify 2>&1 | FileCheck %s --check-prefix=RS-LINKS
// RS-LINKS: error: rank {{[0-3]}}, channel {{[0-2]}}, step {{[0-9]}}: sends to rank {{[0-3]}} over {{pcie|smp}}, but the program allows only links up to nvlink

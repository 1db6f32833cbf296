// The hierarchical all-reduce through each node's NVSwitch, chosen by hand
// on two h100x8 nodes: GPU l reduces block l of its node in the switch
// (multimem steps in groups of the node's 8 ranks), all-reduces it along
// its rail (halving, then doubling: one exchange each way over two nodes),
// stores it through the switch to its node, and at the end signals its
// node-mates. It must pass sched-verify and emit grouped multimem steps
// and a header that binds each node's ranks to a multicast object.
// RUN: ccopt %s --ccl-lower-to-sched="topo=h100x8 nodes=2" --sched-verify | FileCheck %s
// RUN: ccopt %s --topo h100x8 --nodes 2 --emit=cuda | FileCheck %s --check-prefix=CUDA

// CHECK-LABEL: sched.program @p_all_reduce_0 attributes {algorithm = "hierarchical_nvls", channels = 2 : i64,
// CHECK-SAME: multicast
// CHECK-SAME: scratch_count = 1024
// CHECK: sched.task channel 0 {
// CHECK: sched.multimem_reduce <input, {{.*}}> -> <output, {{.*}}> group 8
// CHECK: sched.send
// CHECK: sched.recv
// CHECK: sched.reduce
// CHECK: sched.send
// CHECK: sched.recv
// CHECK: sched.multimem_store <output, {{.*}}> -> <output, {{.*}}> group 8
// CHECK: sched.loop 1 to 8 {
// CHECK-NEXT: sched.signal to
// CHECK: sched.loop 1 to 8 {
// CHECK-NEXT: sched.recv from
// CHECK: sched.task channel 1 {

// CUDA: // ccopt-schedule kernel=ccopt_p_all_reduce_0 collective=all_reduce {{.*}}algorithm=hierarchical_nvls protocol=simple mailbox=0 multicast=8
// CUDA: cc_multimem_reduce<cc_op_sum>(args, rank, CC_BUF_INPUT, {{.*}}, 1LL, 8);
// CUDA: cc_multimem_store(args, rank, CC_BUF_OUTPUT, dst_b, {{.*}}, src_n, 8);

ccl.program @p world(16) {
  %a = ccl.buffer "a" multicast : !ccl.buffer<1024xf32>
  %b = ccl.buffer "b" multicast : !ccl.buffer<1024xf32>
  ccl.all_reduce sum %a -> %b {algorithm = "hierarchical_nvls", channels = 2, chunks = 1} : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
}

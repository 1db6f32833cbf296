// --emit=report for every collective, not only all_reduce: one row per
// lowered collective (a send and its recv are one row), each against NCCL's
// own algorithm for it (rings for reduce_scatter and all_gather, the ring
// chain for broadcast and reduce, grouped p2p for all_to_all and send/recv,
// the one-element all-reduce for a barrier) and against its lower bound.

// RUN: ccopt %s --topo a100x8 --emit=report | FileCheck %s --check-prefix=TABLE
// Two header lines and seven rows.
// RUN: ccopt %s --topo a100x8 --emit=report | count 9

// nccl-tests' size is the larger buffer; redop "none" where there is none;
// the collective and the root close each row.
// TABLE: # ccopt report: a100x8, 1 node(s), 8 ranks;
// TABLE-NEXT: # size(B) {{.*}} vs_plain collective root
// TABLE-NEXT: 1048576 262144 f32 sum {{ring|direct}} {{LL|Simple}} [[#]] [[#]] {{[0-9. ]+}} ring/{{LL|LL128|Simple}} {{.*}} reduce_scatter -1
// TABLE-NEXT: 1048576 262144 f32 none {{ring|direct}} {{LL|Simple}} [[#]] [[#]] {{[0-9. ]+}} ring/{{LL|LL128|Simple}} {{.*}} all_gather -1
// TABLE-NEXT: 65536 16384 f32 none {{chain|direct|binomial|scatter_allgather}} {{LL|Simple}} [[#]] [[#]] {{[0-9. ]+}} chain/{{LL|LL128|Simple}} {{.*}} broadcast 2
// TABLE-NEXT: 65536 16384 f32 max {{chain|direct|binomial}} {{LL|Simple}} [[#]] [[#]] {{[0-9. ]+}} chain/{{LL|LL128|Simple}} {{.*}} reduce 5
// TABLE-NEXT: 262144 65536 f32 none {{pairwise|direct}} {{LL|Simple}} [[#]] [[#]] {{[0-9. ]+}} direct/{{LL|Simple}} {{.*}} all_to_all -1
// TABLE-NEXT: 4096 1024 f32 none direct {{LL|Simple}} [[#]] [[#]] {{[0-9. ]+}} direct/{{LL|Simple}} {{.*}} send_recv -1
// TABLE-NEXT: 0 0 {{[a-z0-9]+}} none dissemination Simple 1 1 {{.*}} barrier -1

// JSON: the schema's keys on every row, NCCL's algorithm per collective,
// busbw with nccl-tests' factors, and nothing faster than its bound.
// RUN: ccopt %s --topo a100x8 --emit=report --report-format=json > %t.json
// RUN: python3 %S/Inputs/check-report.py %t.json reduce_scatter:ring all_gather:ring broadcast:chain reduce:chain all_to_all:direct send_recv:direct barrier:

// Two nodes: the bounds see the NICs, the baselines use NCCL's rail rings.
// RUN: sed -e 's/32768xf32/16384xf32/g' %s | ccopt - --topo a100x8 --nodes 2 --emit=report --report-format=json > %t2.json
// RUN: python3 %S/Inputs/check-report.py %t2.json reduce_scatter:ring all_gather:ring broadcast:chain reduce:chain all_to_all:direct send_recv:direct barrier:

// --sweep resizes every collective but the barrier: nccl-tests' size, in
// whole blocks where the collective splits its buffer.
// RUN: ccopt %s --topo a100x8 --emit=report --report-format=json --sweep=1K:4K | python3 -c "import json,sys; d=json.load(sys.stdin); got=[(r['collective'], r['size_bytes']) for r in d['rows']]; want=[(c, s) for c in ['reduce_scatter','all_gather','broadcast','reduce','all_to_all','send_recv'] for s in (1024, 2048, 4096)]; assert got == want, got"
// RUN: ccopt %s --topo pcie4x8 --emit=report --sweep=64M:64M | FileCheck %s --check-prefix=SWEEP
// SWEEP: 67108864 16777216 f32 sum {{ring|direct|hierarchical}} {{.*}} reduce_scatter -1
// SWEEP: 67108864 16777216 f32 none {{ring|direct|hierarchical}} {{.*}} all_gather -1
// SWEEP: 67108864 16777216 f32 none {{chain|direct|binomial|scatter_allgather|hierarchical|hierarchical_tree}} {{.*}} broadcast 2
// SWEEP: 67108864 16777216 f32 max {{chain|direct|binomial}} {{.*}} reduce 5
// SWEEP: 67108864 16777216 f32 none {{.*}} all_to_all -1
// SWEEP: 67108864 16777216 f32 none direct {{.*}} send_recv -1
// SWEEP-NOT: barrier

ccl.program @p {
  %in = ccl.buffer "in" : !ccl.buffer<262144xf32>
  %block = ccl.buffer "block" : !ccl.buffer<32768xf32>
  %all = ccl.buffer "all" : !ccl.buffer<262144xf32>
  %x = ccl.buffer "x" : !ccl.buffer<16384xf32>
  %y = ccl.buffer "y" : !ccl.buffer<16384xf32>
  %s = ccl.buffer "s" : !ccl.buffer<65536xf32>
  %t = ccl.buffer "t" : !ccl.buffer<65536xf32>
  %m = ccl.buffer "m" : !ccl.buffer<1024xf32>
  ccl.reduce_scatter sum %in -> %block : !ccl.buffer<262144xf32> -> !ccl.buffer<32768xf32>
  ccl.all_gather %block -> %all : !ccl.buffer<32768xf32> -> !ccl.buffer<262144xf32>
  ccl.broadcast %x -> %y root 2 : !ccl.buffer<16384xf32> -> !ccl.buffer<16384xf32>
  ccl.reduce max %x -> %y root 5 : !ccl.buffer<16384xf32> -> !ccl.buffer<16384xf32>
  ccl.all_to_all %s -> %t : !ccl.buffer<65536xf32> -> !ccl.buffer<65536xf32>
  ccl.send %m from 1 to 6 : !ccl.buffer<1024xf32>
  ccl.recv %m from 1 to 6 : !ccl.buffer<1024xf32>
  ccl.barrier
}

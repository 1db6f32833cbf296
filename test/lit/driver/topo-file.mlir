// A topology file describing a DGX A100 node, in ccopt's JSON or as NCCL's
// topology dump, gives the same schedule as the a100x8 preset.

// RUN: ccopt %examples/allreduce.mlir --topo a100x8 -o %t.preset.mlir
// RUN: FileCheck %s --check-prefix=SCHED --input-file %t.preset.mlir
// RUN: ccopt %examples/allreduce.mlir --topo-file %examples/topologies/dgx-a100-like.json -o %t.json.mlir
// RUN: diff %t.preset.mlir %t.json.mlir
// RUN: ccopt %examples/allreduce.mlir --topo-file %examples/topologies/nccl-dgx-a100.xml -o %t.xml.mlir
// RUN: diff %t.preset.mlir %t.xml.mlir

// SCHED: ccl.program @train_step world(8) {
// SCHED: ccl.all_reduce sum %grads -> %grads {{{.*}}schedule = @train_step_all_reduce_0{{.*}}}
// SCHED: sched.program @train_step_all_reduce_0 attributes {{{.*}}algorithm = "twoshot"{{.*}} ranks = 8 : i64
// SCHED: sched.task channel 0 {

// --nodes replicates the file's node.
// RUN: ccopt %examples/allreduce.mlir --topo-file %examples/topologies/dgx-a100-like.json --nodes 2 | FileCheck %s --check-prefix=NODES2
// RUN: ccopt %examples/allreduce.mlir --topo-file %examples/topologies/nccl-dgx-a100.xml --nodes 2 | FileCheck %s --check-prefix=NODES2
// NODES2: ccl.program @train_step world(16) {
// NODES2: sched.program @train_step_all_reduce_0 attributes {{{.*}} ranks = 16 : i64

// The report names the machine after the file.
// RUN: ccopt %examples/allreduce.mlir --topo-file %examples/topologies/dgx-a100-like.json --emit=report | FileCheck %s --check-prefix=REPORT-JSON
// RUN: ccopt %examples/allreduce.mlir --topo-file %examples/topologies/nccl-dgx-a100.xml --nodes 2 --emit=report | FileCheck %s --check-prefix=REPORT-XML
// REPORT-JSON: # ccopt report: dgx-a100-like, 1 node(s), 8 ranks;
// REPORT-XML: # ccopt report: nccl-dgx-a100, 2 node(s), 16 ranks;

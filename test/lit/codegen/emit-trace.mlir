// --emit=trace: the simulated run as Chrome trace JSON (ui.perfetto.dev), a
// track per rank/channel and per link, named by thread_name metadata.

// RUN: ccopt %s --topo a100x8 --emit=trace | python3 -c "import json,sys; json.load(sys.stdin)"
// RUN: ccopt %s --topo a100x8 --emit=trace | FileCheck %s
// RUN: ccopt %s --topo a100x8 --emit=trace | python3 -c "import json,sys; e=json.load(sys.stdin)['traceEvents']; assert all(x['ph'] in ('M','X') for x in e); assert all(x['dur'] >= 0 and x['ts'] >= 0 for x in e if x['ph'] == 'X'); names={x['args']['name'] for x in e if x['ph'] == 'M'}; assert len(names) == sum(x['ph'] == 'M' for x in e), 'one thread_name per track'; assert any('rank 7 / ch 0' in n for n in names), names"

// CHECK: "displayTimeUnit": "ns",
// CHECK-NEXT: "traceEvents": [
// CHECK-DAG: "name": "thread_name"
// CHECK-DAG: "name": "ring_all_reduce_0: rank 0 / ch 0"
// CHECK-DAG: "name": "ring_all_reduce_0: link gpu0 -> nvswitch"
// CHECK-DAG: "name": "ring_all_reduce_0: link nvswitch -> gpu1"
// CHECK-DAG: "ph": "M"
// CHECK-DAG: "ph": "X"
// CHECK-DAG: "name": "send"
// CHECK-DAG: "name": "recv"
// CHECK-DAG: "name": "rank 0 -> 1"
// CHECK-DAG: "bytes": [[#]]

// An error names the schedule and is not a trace.
// RUN: not ccopt %s --emit=trace 2>&1 | FileCheck %s --check-prefix=NO-MACHINE
// NO-MACHINE: ccopt: error: --emit=report and --emit=trace need a machine (--topo or --topo-file)

ccl.program @ring {
  %g = ccl.buffer "g" : !ccl.buffer<65536xf32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<65536xf32> -> !ccl.buffer<65536xf32>
}

// RUN: ccopt %s --topo a100x8 --profile %S/Inputs/overlap-profile.json --emit=mlir | FileCheck %s
// RUN: ccopt %s --topo a100x8 --profile %S/Inputs/overlap-profile.json --emit=report | FileCheck %s --check-prefix=REPORT
// RUN: ccopt %s --topo a100x8 --profile %S/Inputs/overlap-profile.json --emit=report --report-format=json | FileCheck %s --check-prefix=JSON
// RUN: ccopt %s --ccl-assign-world=topo=a100x8 --ccl-plan-overlap="topo=a100x8 profile=%S/Inputs/overlap-profile.json" --ccl-lower-to-sched=topo=a100x8 --sched-verify | FileCheck %s --check-prefix=LOWER

// Bad profiles: the field is named, exit code 1.
// RUN: not ccopt %s --topo a100x8 --profile %S/Inputs/overlap-unknown.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not ccopt %s --topo a100x8 --profile %S/Inputs/overlap-missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not ccopt %s --topo a100x8 --profile %S/Inputs/overlap-bad-time.json 2>&1 | FileCheck %s --check-prefix=TIME
// RUN: not ccopt %s --topo a100x8 --profile %S/Inputs/overlap-duplicate.json 2>&1 | FileCheck %s --check-prefix=DUP
// RUN: not ccopt %s --topo a100x8 --profile %S/Inputs/overlap-syntax.json 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not ccopt %s --topo a100x8 --profile %S/Inputs/no-such-profile.json 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not ccopt %s --profile %S/Inputs/overlap-profile.json 2>&1 | FileCheck %s --check-prefix=NOMACHINE
// RUN: sh -c 'ccopt %s --topo a100x8 --profile %S/Inputs/overlap-missing.json 2>/dev/null; test $? -eq 1'

// Each bucket is issued right after the event of its last member, with the
// channels and chunks the plan simulated; the three plans are recorded.
// CHECK-LABEL: ccl.program @backward
// CHECK-SAME: overlap = {ccopt = {buckets = {{[0-9]+}} : i64, channels = {{[0-9]+}} : i64
// CHECK-SAME: ddp = {buckets = 1 : i64, channels = 16 : i64
// CHECK-SAME: none = {buckets = 6 : i64, channels = 16 : i64
// Buckets follow the events they wait for; the last one follows "l0".
// CHECK: ccl.ready "l2"
// CHECK: ccl.bucket "ccopt.overlap0"
// CHECK-NEXT: ccl.all_reduce avg %{{.*}} {algorithm = "ring", channels = {{[0-9]+}} : i64, chunks = {{[0-9]+}} : i64, fused = {{[0-9]}} : i64, predicted_us
// CHECK: ccl.ready "l0"
// CHECK-NEXT: ccl.bucket
// CHECK-NEXT: ccl.all_reduce avg
// CHECK-NEXT: {{^}} }

// REPORT: # step @backward: compute 1200.0 us on 108 SMs
// REPORT-NEXT: # plan
// REPORT-NEXT: no-overlap
// REPORT-NEXT: ddp-25MiB
// REPORT-NEXT: ccopt

// JSON: "steps": [
// JSON: "ccopt": {
// JSON: "compute_us": 1200
// JSON: "ddp": {
// JSON: "none": {

// LOWER: sched.program @backward_all_reduce_

// UNKNOWN: error: {{.*}}overlap-unknown.json: events[3].name: unknown event 'l9' (no ccl.ready declares it)
// MISSING: error: {{.*}}overlap-missing.json: events: no compute time for event 'l1'
// TIME: error: {{.*}}overlap-bad-time.json: events[1].compute_us: expected a non-negative number
// DUP: error: {{.*}}overlap-duplicate.json: events[2].name: event 'l2' is listed twice
// SYNTAX: error: {{.*}}overlap-syntax.json: {{.*}}
// NOFILE: error: {{.*}}no-such-profile.json: cannot read the profile:
// NOMACHINE: ccopt: error: --profile needs a machine (--topo or --topo-file)

ccl.program @backward {
  %w2 = ccl.buffer "w2" : !ccl.buffer<2097152xf32>
  %b2 = ccl.buffer "b2" : !ccl.buffer<1024xf32>
  %w1 = ccl.buffer "w1" : !ccl.buffer<2097152xf32>
  %b1 = ccl.buffer "b1" : !ccl.buffer<1024xf32>
  %w0 = ccl.buffer "w0" : !ccl.buffer<2097152xf32>
  %b0 = ccl.buffer "b0" : !ccl.buffer<1024xf32>
  ccl.ready "l2" %w2, %b2 : !ccl.buffer<2097152xf32>, !ccl.buffer<1024xf32>
  ccl.ready "l1" %w1, %b1 : !ccl.buffer<2097152xf32>, !ccl.buffer<1024xf32>
  ccl.ready "l0" %w0, %b0 : !ccl.buffer<2097152xf32>, !ccl.buffer<1024xf32>
  ccl.all_reduce avg %w2 -> %w2 : !ccl.buffer<2097152xf32> -> !ccl.buffer<2097152xf32>
  ccl.all_reduce avg %b2 -> %b2 : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
  ccl.all_reduce avg %w1 -> %w1 : !ccl.buffer<2097152xf32> -> !ccl.buffer<2097152xf32>
  ccl.all_reduce avg %b1 -> %b1 : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
  ccl.all_reduce avg %w0 -> %w0 : !ccl.buffer<2097152xf32> -> !ccl.buffer<2097152xf32>
  ccl.all_reduce avg %b0 -> %b0 : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
}

// --emit=report: one row per lowered all_reduce with the simulated time of
// ccopt's schedule, the NCCL baseline on the same machine model and the lower
// bound, as an nccl-tests-like table or as JSON.

// RUN: ccopt %s --topo a100x8 --emit=report | FileCheck %s --check-prefix=TABLE
// Two header lines and one row per all_reduce, nothing else.
// RUN: ccopt %s --topo a100x8 --emit=report | count 4

// TABLE: # ccopt report: a100x8, 1 node(s), 8 ranks;
// FileCheck folds runs of blanks, so single spaces match the aligned columns.
// TABLE-NEXT: # size(B) count type redop algorithm proto ch chunks time(us) algbw busbw nccl_algo nccl_us nccl_bw bound(us) vs_nccl of_bound
// TABLE-NEXT: 4194304 1048576 f32 sum twoshot Simple [[#]] [[#]] {{[0-9.]+ [0-9.]+ [0-9.]+}} ring/{{LL|LL128|Simple}} {{[0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+}} {{(f32|f16) [0-9]+ [0-9.]+ 1.000}} all_reduce -1{{$}}
// TABLE-NEXT: 8192 4096 f16 max oneshot LL [[#]] [[#]] {{[0-9.]+ [0-9.]+ [0-9.]+}} ring/{{LL|LL128|Simple}} {{[0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+}} {{(f32|f16) [0-9]+ [0-9.]+ 1.000}} all_reduce -1{{$}}

// The JSON form has the keys of README's schema (later versions may add
// fields, so the checks allow more between them; llvm::json sorts keys).
// RUN: ccopt %s --topo a100x8 --emit=report --report-format=json | FileCheck %s --check-prefix=JSON
// RUN: ccopt %s --topo a100x8 --emit=report --report-format=json | python3 -c "import json,sys; d=json.load(sys.stdin); schema='collective size_bytes count dtype redop algorithm protocol channels chunks time_us algbw_gbps busbw_gbps nccl_algorithm nccl_protocol nccl_time_us nccl_busbw_gbps bound_time_us speedup_vs_nccl fraction_of_bound'.split(); assert {'topology','nodes','ranks','rows'} <= set(d), d.keys(); assert len(d['rows']) == 2, d['rows']; missing=[k for r in d['rows'] for k in schema if k not in r]; assert not missing, missing; assert all(r['time_us'] >= r['bound_time_us'] > 0 for r in d['rows'])"

// JSON: {
// JSON:   "nodes": 1,
// JSON:   "ranks": 8,
// JSON:   "rows": [
// JSON-NEXT:     {
// JSON:       "algbw_gbps": {{[0-9.e+-]+}},
// JSON:       "algorithm": "twoshot",
// JSON:       "bound_time_us": {{[0-9.e+-]+}},
// JSON:       "busbw_gbps": {{[0-9.e+-]+}},
// JSON:       "channels": [[#]],
// JSON:       "chunks": [[#]],
// JSON:       "collective": "all_reduce",
// JSON:       "count": 1048576,
// JSON:       "dtype": "f32",
// JSON:       "fraction_of_bound": {{[0-9.e+-]+}},
// JSON:       "nccl_algorithm": "ring",
// JSON:       "nccl_busbw_gbps": {{[0-9.e+-]+}},
// JSON:       "nccl_protocol": "{{LL|LL128|Simple}}",
// JSON:       "nccl_time_us": {{[0-9.e+-]+}},
// JSON:       "protocol": "Simple",
// JSON:       "redop": "sum",
// JSON:       "runner_up": "{{ring|halving_doubling}}",
// JSON:       "runner_up_time_us": {{[0-9.e+-]+}},
// JSON:       "size_bytes": 4194304,
// JSON:       "speedup_vs_nccl": {{[0-9.e+-]+}},
// JSON:       "speedup_vs_uncompressed": 1,
// JSON:       "time_us": {{[0-9.e+-]+}},
// JSON:       "uncompressed_time_us": {{[0-9.e+-]+}},
// JSON:       "uncompressed_wire_bytes": [[#]],
// JSON:       "wire_bytes": [[#]],
// JSON:       "wire_type": "f32"
// JSON-NEXT:     },
// JSON-NEXT:     {
// JSON:            "count": 4096,
// JSON-NEXT:       "dtype": "f16",
// JSON:            "redop": "max",
// JSON:            "size_bytes": 8192,
// JSON:          }
// JSON-NEXT:   ],
// JSON-NEXT:   "topology": "a100x8"
// JSON-NEXT: }

// --sweep lowers every all_reduce again at each power of two in [MIN, MAX].
// RUN: ccopt %examples/allreduce.mlir --topo a100x8 --emit=report --sweep=1K:8K | FileCheck %s --check-prefix=SWEEP
// RUN: ccopt %examples/allreduce.mlir --topo a100x8 --emit=report --sweep=1K:8K | count 6
// RUN: ccopt %examples/allreduce.mlir --topo a100x8 --emit=report --sweep=1K:8K --report-format=json | python3 -c "import json,sys; d=json.load(sys.stdin); assert [r['size_bytes'] for r in d['rows']] == [1024, 2048, 4096, 8192], d"

// SWEEP: # ccopt report: a100x8, 1 node(s), 8 ranks;
// SWEEP: 1024 256 f32 sum oneshot
// SWEEP-NEXT: 2048 512 f32
// SWEEP-NEXT: 4096 1024 f32
// SWEEP-NEXT: 8192 2048 f32

// --nodes 2 doubles the world.
// RUN: ccopt %examples/allreduce.mlir --topo a100x8 --nodes 2 --emit=report | FileCheck %s --check-prefix=NODES2
// RUN: ccopt %examples/allreduce.mlir --topo a100x8 --nodes 2 --emit=report --report-format=json | FileCheck %s --check-prefix=NODES2-JSON
// NODES2: # ccopt report: a100x8, 2 node(s), 16 ranks;
// NODES2-NEXT: # size(B)
// NODES2-NEXT: 4194304 1048576 f32 sum {{hierarchical|hierarchical_rd}} 
// NODES2-JSON: "nodes": 2,
// NODES2-JSON-NEXT: "ranks": 16,

ccl.program @p {
  %a = ccl.buffer "a" : !ccl.buffer<1048576xf32>
  %b = ccl.buffer "b" : !ccl.buffer<4096xf16>
  %c = ccl.buffer "c" : !ccl.buffer<4096xf16>
  ccl.all_reduce sum %a -> %a : !ccl.buffer<1048576xf32> -> !ccl.buffer<1048576xf32>
  ccl.all_reduce max %b -> %c : !ccl.buffer<4096xf16> -> !ccl.buffer<4096xf16>
}

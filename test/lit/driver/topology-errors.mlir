// A bad machine, topology file or report option is a clear one-line error
// that names the argument (or the file, with line:col or the field path),
// exit code 1 and no output.

// Unknown preset.
// RUN: not ccopt %s --topo dgx9 2>&1 | FileCheck %s --check-prefix=TOPO
// RUN: not ccopt %s --topo dgx9 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo dgx9 >/dev/null 2>&1; test $? -eq 1'
// TOPO: ccopt: error: unknown machine 'dgx9' for --topo (presets: a100x8, h100x8, h200x8, v100x8, pcie4x8)

// No nodes.
// RUN: not ccopt %s --topo a100x8 --nodes 0 2>&1 | FileCheck %s --check-prefix=NODES
// RUN: not ccopt %s --topo a100x8 --nodes 0 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo a100x8 --nodes 0 >/dev/null 2>&1; test $? -eq 1'
// NODES: ccopt: error: --nodes must be at least 1, got 0

// A preset and a file at once.
// RUN: not ccopt %s --topo a100x8 --topo-file %examples/topologies/dgx-a100-like.json 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not ccopt %s --topo a100x8 --topo-file %examples/topologies/dgx-a100-like.json 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo a100x8 --topo-file %examples/topologies/dgx-a100-like.json >/dev/null 2>&1; test $? -eq 1'
// BOTH: ccopt: error: give --topo or --topo-file, not both

// A file that does not exist.
// RUN: not ccopt %s --topo-file %t.missing.json 2>&1 | FileCheck %s --check-prefix=MISSING -DFILE=%t.missing.json
// RUN: not ccopt %s --topo-file %t.missing.json 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo-file %t.missing.json >/dev/null 2>&1; test $? -eq 1'
// MISSING: ccopt: error: [[FILE]]: cannot read the topology file: {{.+}}

// Malformed JSON: file:line:col.
// RUN: echo '{"devices": [' > %t.malformed.json
// RUN: not ccopt %s --topo-file %t.malformed.json 2>&1 | FileCheck %s --check-prefix=MALFORMED -DFILE=%t.malformed.json
// RUN: not ccopt %s --topo-file %t.malformed.json 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo-file %t.malformed.json >/dev/null 2>&1; test $? -eq 1'
// MALFORMED: ccopt: error: [[FILE]]:[[#]]:[[#]]: {{.+}}

// A link to a device that does not exist: the field's path.
// RUN: echo '{"devices": [{"name": "gpu0", "kind": "gpu"}, {"name": "gpu1", "kind": "gpu"}], "links": [{"from": "gpu0", "to": "gpu1", "kind": "nvlink", "bandwidth_gbps": 20}, {"from": "gpu0", "to": "gpu9", "kind": "nvlink", "bandwidth_gbps": 20}]}' > %t.unknown.json
// RUN: not ccopt %s --topo-file %t.unknown.json 2>&1 | FileCheck %s --check-prefix=UNKNOWN -DFILE=%t.unknown.json
// RUN: not ccopt %s --topo-file %t.unknown.json 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo-file %t.unknown.json >/dev/null 2>&1; test $? -eq 1'
// UNKNOWN: ccopt: error: [[FILE]]: links[1].to: unknown device 'gpu9'

// A zero bandwidth.
// RUN: echo '{"devices": [{"name": "gpu0", "kind": "gpu"}, {"name": "gpu1", "kind": "gpu"}], "links": [{"from": "gpu0", "to": "gpu1", "kind": "nvlink", "bandwidth_gbps": 0}]}' > %t.zero.json
// RUN: not ccopt %s --topo-file %t.zero.json 2>&1 | FileCheck %s --check-prefix=ZERO -DFILE=%t.zero.json
// RUN: not ccopt %s --topo-file %t.zero.json 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo-file %t.zero.json >/dev/null 2>&1; test $? -eq 1'
// ZERO: ccopt: error: [[FILE]]: links[0].bandwidth_gbps: must be a number > 0 (got 0)

// GPUs with no route between them.
// RUN: echo '{"devices": [{"name": "gpu0", "kind": "gpu"}, {"name": "gpu1", "kind": "gpu"}, {"name": "sw", "kind": "nvswitch"}], "links": [{"from": "gpu0", "to": "sw", "kind": "nvlink", "bandwidth_gbps": 20}]}' > %t.disconnected.json
// RUN: not ccopt %s --topo-file %t.disconnected.json 2>&1 | FileCheck %s --check-prefix=DISCONNECTED -DFILE=%t.disconnected.json
// RUN: not ccopt %s --topo-file %t.disconnected.json 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo-file %t.disconnected.json >/dev/null 2>&1; test $? -eq 1'
// DISCONNECTED: ccopt: error: [[FILE]]: the graph is disconnected: no route between gpu0 and gpu1

// A program whose world does not fit the machine: located at the program,
// naming the world and the machine (the op is printed below it, as for
// every pass failure).
// RUN: not ccopt %s --topo a100x8 2>&1 | FileCheck %s --check-prefix=WORLD
// RUN: not ccopt %s --topo a100x8 --emit=report 2>&1 | FileCheck %s --check-prefix=WORLD
// RUN: sh -c 'ccopt %s --topo a100x8 >/dev/null 2>&1; test $? -eq 1'
// (WORLD is checked at the program, at the end of this file.)
// Two nodes have room for it.
// RUN: ccopt %s --topo a100x8 --nodes 2 --emit=report | FileCheck %s --check-prefix=FITS
// FITS: # ccopt report: a100x8, 2 node(s), 16 ranks;

// A report or a trace needs a machine.
// RUN: not ccopt %s --emit=report 2>&1 | FileCheck %s --check-prefix=NO-MACHINE
// RUN: not ccopt %s --emit=report 2>&1 | count 1
// RUN: sh -c 'ccopt %s --emit=report >/dev/null 2>&1; test $? -eq 1'
// NO-MACHINE: ccopt: error: --emit=report and --emit=trace need a machine (--topo or --topo-file)

// A bad --sweep: reversed, not a size, zero, half a range.
// RUN: not ccopt %s --topo a100x8 --emit=report --sweep=8:4 2>&1 | FileCheck %s --check-prefix=SWEEP -DARG=8:4
// RUN: not ccopt %s --topo a100x8 --emit=report --sweep=abc 2>&1 | FileCheck %s --check-prefix=SWEEP -DARG=abc
// RUN: not ccopt %s --topo a100x8 --emit=report --sweep=0:1K 2>&1 | FileCheck %s --check-prefix=SWEEP -DARG=0:1K
// RUN: not ccopt %s --topo a100x8 --emit=report --sweep=1K: 2>&1 | FileCheck %s --check-prefix=SWEEP -DARG=1K:
// RUN: not ccopt %s --topo a100x8 --emit=report --sweep=abc 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo a100x8 --emit=report --sweep=8:4 >/dev/null 2>&1; test $? -eq 1'
// SWEEP: ccopt: error: --sweep must be MIN:MAX with 1 <= MIN <= MAX (e.g. 1K:1G), got '[[ARG]]'

// A bad --report-format.
// RUN: not ccopt %s --topo a100x8 --emit=report --report-format=xml 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not ccopt %s --topo a100x8 --emit=report --report-format=xml 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo a100x8 --emit=report --report-format=xml >/dev/null 2>&1; test $? -eq 1'
// FORMAT: ccopt: error: --report-format must be table or json, got 'xml'

// Nothing is written on failure.
// RUN: rm -f %t.out
// RUN: not ccopt %s --topo a100x8 --emit=report -o %t.out
// RUN: not test -e %t.out

// WORLD: topology-errors.mlir:[[# @LINE + 2]]:1: error: program world of 16 ranks does not fit on a100x8 x 1 (8 GPUs)
// WORLD-NOT: error:
ccl.program @big world(16) {
  %g = ccl.buffer "g" : !ccl.buffer<1024xf32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<1024xf32> -> !ccl.buffer<1024xf32>
}

// Bad machine options are one-line errors that name the argument, exit code 1,
// before the input is read.
// RUN: not ccopt %s --topo dgx1 2>&1 | FileCheck %s --check-prefix=TOPO
// RUN: not ccopt %s --topo dgx1 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo dgx1 2>/dev/null; test $? -eq 1'
// RUN: not ccopt %s --topo=A100x8 2>&1 | FileCheck %s --check-prefix=TOPO-CASE
// RUN: not ccopt %t/missing.mlir --topo dgx1 2>&1 | FileCheck %s --check-prefix=TOPO

// RUN: not ccopt %s --topo a100x8 --nodes 0 2>&1 | FileCheck %s --check-prefix=NODES0
// RUN: not ccopt %s --topo a100x8 --nodes 0 2>&1 | count 1
// RUN: sh -c 'ccopt %s --topo a100x8 --nodes 0 2>/dev/null; test $? -eq 1'
// RUN: not ccopt %s --topo a100x8 --nodes=-2 2>&1 | FileCheck %s --check-prefix=NODES-NEG

// RUN: not ccopt %s --topo a100x8 --chunks -1 2>&1 | FileCheck %s --check-prefix=CHUNKS
// RUN: not ccopt %s --topo a100x8 --channels -3 2>&1 | FileCheck %s --check-prefix=CHUNKS

// An unknown --emit is rejected by the option parser.
// RUN: not ccopt %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=EMIT

// TOPO: ccopt: error: unknown machine 'dgx1' for --topo (presets: a100x8, h100x8, h200x8, v100x8, pcie4x8)
// TOPO-CASE: ccopt: error: unknown machine 'A100x8' for --topo (presets: a100x8, h100x8, h200x8, v100x8, pcie4x8)
// NODES0: ccopt: error: --nodes must be at least 1, got 0
// NODES-NEG: ccopt: error: --nodes must be at least 1, got -2
// CHUNKS: ccopt: error: --chunks and --channels must not be negative
// EMIT: for the --emit option: Cannot find option named 'ptx'!

ccl.program @p {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}

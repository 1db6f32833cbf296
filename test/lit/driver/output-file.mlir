// -o writes the output only when everything succeeded.
// RUN: rm -rf %t && mkdir -p %t

// Success: the file holds the output, stdout stays empty.
// RUN: ccopt %s --topo a100x8 --emit=mlir -o %t/ok.mlir | count 0
// RUN: FileCheck %s --check-prefix=OK < %t/ok.mlir

// A missing folder: an error that names the file, exit code 1, no file.
// RUN: not ccopt %s --topo a100x8 --emit=mlir -o %t/missing/out.mlir 2>&1 | FileCheck %s --check-prefix=NO-DIR -DFILE=%t/missing/out.mlir
// RUN: sh -c 'ccopt %s --topo a100x8 --emit=mlir -o %t/missing/out.mlir 2>/dev/null; test $? -eq 1'
// RUN: not ls %t/missing
// A folder is no output file either.
// RUN: not ccopt %s --topo a100x8 --emit=mlir -o %t 2>&1 | FileCheck %s --check-prefix=IS-DIR -DFILE=%t

// A failing run leaves an existing file untouched: a pass failure (no
// machine, no world), a bad option, a missing input, a bad pipeline.
// RUN: echo keep > %t/out.mlir
// RUN: not ccopt %s --emit=schedule -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=NO-WORLD
// RUN: cat %t/out.mlir | FileCheck %s --check-prefix=KEEP
// RUN: not ccopt %s --topo dgx1 -o %t/out.mlir
// RUN: cat %t/out.mlir | FileCheck %s --check-prefix=KEEP
// RUN: not ccopt %t/missing-input.mlir -o %t/out.mlir
// RUN: cat %t/out.mlir | FileCheck %s --check-prefix=KEEP
// RUN: not ccopt %s --pass-pipeline="builtin.module(no-such-pass)" -o %t/out.mlir 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: cat %t/out.mlir | FileCheck %s --check-prefix=KEEP
// No temporary file is left behind.
// RUN: ls %t | count 2

// A failing run does not create the file either.
// RUN: not ccopt %s --emit=schedule -o %t/new.mlir
// RUN: not ls %t/new.mlir

// OK: ccl.program @p world(8) {
// NO-DIR: ccopt: error: cannot write output '[[FILE]]': No such file or directory
// IS-DIR: ccopt: error: cannot write output '[[FILE]]': Is a directory
// NO-WORLD: error: the world size is unknown
// PIPELINE: 'no-such-pass' does not refer to a registered pass or pass pipeline
// KEEP: {{^keep$}}

ccl.program @p {
  %g = ccl.buffer "g" : !ccl.buffer<64xf32>
  ccl.all_reduce sum %g -> %g : !ccl.buffer<64xf32> -> !ccl.buffer<64xf32>
}


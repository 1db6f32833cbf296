// A failing chunk does not stop the others: every chunk's errors are
// reported (at the chunk's first line in the file and the line within the
// chunk), then exit code 1 and no output.
// RUN: not ccopt %s --split-input-file --emit=mlir 2>&1 | FileCheck %s -DFILE=%s
// RUN: sh -c 'ccopt %s --split-input-file --emit=mlir 2>/dev/null; test $? -eq 1'
// RUN: not ccopt %s --split-input-file --emit=mlir 2>/dev/null | count 0

// CHECK: within split at [[FILE]]:1 offset :[[# @LINE + 2]]:1: error: 'ccl.program' op world must hold at least one rank, got 0
// CHECK-NOT: @fine
ccl.program @empty_world world(0) {
}

// -----

ccl.program @fine world(2) {
}

// -----

ccl.program @p world(8) {
  // CHECK: within split at [[FILE]]:{{[0-9]+}} offset :{{[0-9]+}}:36: error: buffer count must be positive, got 0
  %a = ccl.buffer "a" : !ccl.buffer<0xf32>
}

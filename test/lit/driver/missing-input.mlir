// A missing input file: one line that names it, exit code 1.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not ccopt %t/missing.mlir 2>&1 | FileCheck %s -DFILE=%t/missing.mlir
// RUN: not ccopt %t/missing.mlir 2>&1 | count 1
// RUN: sh -c 'ccopt %t/missing.mlir 2>/dev/null; test $? -eq 1'
// Nothing goes to stdout.
// RUN: not ccopt %t/missing.mlir 2>/dev/null | count 0
// A folder is no input either.
// RUN: not ccopt %t 2>&1 | FileCheck %s --check-prefix=FOLDER -DDIR=%t

// CHECK: ccopt: error: cannot open input file '[[FILE]]': No such file or directory
// FOLDER: ccopt: error: cannot open input file '[[DIR]]': Is a directory

// Gradient all-reduce of one 4 MiB f32 bucket (1M elements) on every GPU.
// `ccopt examples/allreduce.mlir --topo a100x8` gives the verified ring schedule.
ccl.program @train_step {
  %grads = ccl.buffer "grads" : !ccl.buffer<1048576xf32>
  ccl.all_reduce sum %grads -> %grads : !ccl.buffer<1048576xf32> -> !ccl.buffer<1048576xf32>
}

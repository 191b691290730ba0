// Only regular files are read as .npy inputs: /dev/zero (here through a
// link named .npy) used to be read without end until the process aborted,
// and a FIFO blocked the reader.
// RUN: rm -f %t.zero.npy %t.fifo.npy
// RUN: ln -s /dev/zero %t.zero.npy
// RUN: mkfifo %t.fifo.npy
// RUN: not traced-translate --interpret %s --interpret-input=%t.zero.npy 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not traced-translate --interpret %s --interpret-input=%t.fifo.npy 2>&1 | FileCheck %s --check-prefix=FIFO
// RUN: not traced-translate --run %s --run-input=%t.zero.npy 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO: error: cannot read '{{.*}}zero.npy': not a regular file (devices, FIFOs and directories are refused)
// FIFO: error: cannot read '{{.*}}fifo.npy': not a regular file
traced.module root @M class "m.M" {
  graph @forward(%self: !traced.module<@M>, %x: tensor<3xf32>) -> tensor<3xf32> {
    %y = call_function "torch.neg"(input=%x) : (tensor<3xf32>) -> tensor<3xf32>
    output %y : tensor<3xf32>
  }
}

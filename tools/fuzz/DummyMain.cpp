//===- DummyMain.cpp - Run a fuzz target on files, without libFuzzer ------===//
//
// The normal build's main for the fuzz targets: every argument is a file
// (or a directory of files) given to LLVMFuzzerTestOneInput once, as
// libFuzzer would when replaying a crash. The lit suite runs test/Fuzz's
// regression inputs this way, so a finding stays fixed without a sanitizer
// build.
//
//===----------------------------------------------------------------------===//

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" __attribute__((weak)) int LLVMFuzzerInitialize(int *argc,
                                                          char ***argv);

static int runFile(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    llvm::errs() << path << ": " << buffer.getError().message() << "\n";
    return 1;
  }
  // A fresh heap copy of exactly the file's size, as libFuzzer passes it,
  // so that reads past the end are caught by a sanitizer.
  std::vector<uint8_t> copy((*buffer)->getBufferStart(),
                            (*buffer)->getBufferEnd());
  LLVMFuzzerTestOneInput(copy.data(), copy.size());
  return 0;
}

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  int runs = 0, failures = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-')
      continue; // libFuzzer flags mean nothing here
    if (llvm::sys::fs::is_directory(arg)) {
      std::error_code ec;
      for (llvm::sys::fs::directory_iterator it(arg, ec), end;
           it != end && !ec; it.increment(ec)) {
        failures += runFile(it->path());
        ++runs;
      }
      continue;
    }
    failures += runFile(arg);
    ++runs;
  }
  llvm::outs() << "ran " << runs << " input(s)\n";
  return failures ? 1 : 0;
}

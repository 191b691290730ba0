//===- Untrusted.h - reading bytes nobody has checked -----------*- C++ -*-===//
//
// MLIR 22's bytecode reader trusts the file's structure: a corrupt count
// aborts the process (`LLVM ERROR: SmallVector unable to grow`), a corrupt
// attribute table can make it spin forever, a corrupt offset can make it
// write past a buffer (docs/reliability.md, "Untrusted input"). Two
// defences, used by traced-opt, traced-translate, Python's traced.load /
// traced.parse and the bytecode fuzz target:
//
//  * The integrity stamp. Bytecode TracedIR writes carries, in the bytecode
//    header's producer string, a BLAKE3 hash of every other byte of the file
//    and the file's size. The file stays plain MLIR bytecode (upstream's
//    reader ignores the producer), and a truncated or damaged copy is
//    refused before any reader sees it.
//
//  * The sandbox. Bytes that are not known to be good are parsed in a child
//    process with limits on memory, CPU time, wall-clock time, stack and
//    output; the child writes the module it read back as bytecode, and the
//    caller parses that, never the untrusted bytes. (Parsing the same bytes
//    again after the child survived them would not do: a corrupt offset can
//    make the reader write past a heap buffer, which one heap survives and
//    another does not; the fuzz target found such a file.) A refusal comes
//    back as the child's diagnostics. Tools fork (they are single-threaded
//    when they read their input); a multi-threaded process (Python with
//    torch) spawns a tool in its probe mode instead (probeInTool) and never
//    forks.
//
// The sandbox contains crashes, hangs and runaway allocations; it is no
// security boundary: the child runs with the caller's rights.
//
//===----------------------------------------------------------------------===//

#ifndef TRACEDIR_SUPPORT_UNTRUSTED_H
#define TRACEDIR_SUPPORT_UNTRUSTED_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>


namespace llvm {
class raw_ostream;
} // namespace llvm

namespace mlir {
class Diagnostic;
class DialectRegistry;
class FallbackAsmResourceMap;
class Operation;

namespace traced {

//===----------------------------------------------------------------------===//
// The integrity stamp
//===----------------------------------------------------------------------===//

/// The producer string of stamped bytecode is this prefix, the BLAKE3 hash
/// (64 hex digits) of the file without its producer string, a colon and the
/// file's size in bytes (16 hex digits): 97 characters, always the same
/// length, so that writing the stamp over a placeholder moves no byte and
/// keeps every aligned section aligned.
inline constexpr llvm::StringLiteral kStampPrefix = "TracedIR+blake3:";
inline constexpr size_t kStampLength = 16 + 64 + 1 + 16;

/// True when `bytes` starts with MLIR bytecode's magic number.
bool hasBytecodeMagic(llvm::StringRef bytes);

/// Writes `op` as MLIR bytecode carrying the integrity stamp; `version`
/// picks the bytecode version (default: the newest), `fallback` carries the
/// resources of dialects the context does not know.
LogicalResult writeStampedBytecode(Operation *op, llvm::raw_ostream &os,
                                   std::optional<int64_t> version = std::nullopt,
                                   FallbackAsmResourceMap *fallback = nullptr);

/// Reads `bytecode` (which this process wrote, e.g. mlir-opt's writer in
/// traced-opt) into a fresh context holding `registry`'s dialects and writes
/// it again with the stamp, at the bytecode version it has. Fails, with
/// `error`, when it does not read back.
LogicalResult restampBytecode(llvm::StringRef bytecode,
                              const DialectRegistry &registry,
                              bool allowUnregisteredDialects,
                              llvm::raw_ostream &os, std::string &error);

enum class Stamp {
  NotBytecode, ///< text (or anything without bytecode's magic number)
  Unstamped,   ///< bytecode without TracedIR's stamp (old files, upstream's)
  Verified,    ///< bytecode whose stamp matches its size and hash
};

/// Checks the stamp of `bytes`. Fails with `error` ("corrupt bytecode: ...")
/// when the file carries a stamp it does not match: truncated, extended,
/// changed, or a damaged stamp.
FailureOr<Stamp> checkStamp(llvm::StringRef bytes, std::string &error);

//===----------------------------------------------------------------------===//
// The sandbox
//===----------------------------------------------------------------------===//

/// What the child that parses untrusted bytes may use.
struct SandboxLimits {
  /// CPU time (RLIMIT_CPU, rounded up to whole seconds).
  double cpuSeconds = 10;
  /// Wall-clock time, enforced by the parent (SIGKILL).
  double wallSeconds = 25;
  /// Address space beyond what the child has mapped when the limit is set
  /// (RLIMIT_AS), and the most it may write back (RLIMIT_FSIZE); the parent
  /// also kills a child whose resident size grows beyond its own by this
  /// much (sanitizer builds, where RLIMIT_AS cannot be set, rely on that).
  uint64_t memoryBytes = uint64_t(1) << 30;
  /// RLIMIT_STACK.
  uint64_t stackBytes = uint64_t(8) << 20;

  /// The defaults for an input of `size` bytes: 10 s of CPU time plus a
  /// second per 4 MiB, wall-clock twice that plus 5 s, 1 GiB plus 8 times
  /// the input of memory, 8 MiB of stack; each overridden by the
  /// environment: TRACED_SANDBOX_TIMEOUT (CPU seconds; the wall clock
  /// follows), TRACED_SANDBOX_MEMORY_MB, TRACED_SANDBOX_STACK_MB.
  static SandboxLimits forInput(size_t size);

  /// The arguments that carry these limits to a probe child (`cpu=...`).
  std::vector<std::string> toArgs() const;
  /// Reads what toArgs wrote over `defaults`; none on a malformed argument.
  static std::optional<SandboxLimits>
  fromArgs(llvm::ArrayRef<llvm::StringRef> args, SandboxLimits defaults);
};

/// Which bytecode is parsed in the sandbox. The default is all of it;
/// TRACED_SANDBOX=unstamped (or Python's `trusted=True`) skips bytecode
/// whose stamp verified: the opt-out for files TracedIR wrote. The stamp
/// tells a damaged copy from the file that was written; it is no signature,
/// and a file crafted to crash the reader can carry a valid one. Text is
/// never sandboxed: MLIR's text parser checks what it reads, and
/// checkResourceBlobs guards the two things it did not (Blobs.h).
struct SandboxPolicy {
  bool stampedBytecode = true;
  /// TRACED_SANDBOX: unset or "all" (the default), "unstamped".
  static SandboxPolicy fromEnv();
};

/// How a probe ended.
struct ProbeResult {
  enum Kind {
    Parsed,    ///< the child parsed, verified and wrote back the module
    Refused,   ///< the child refused the bytes with diagnostics
    Crashed,   ///< killed by a signal, or an exit status of no probe
    CpuLimit,  ///< past its CPU-time limit (SIGXCPU)
    WallLimit, ///< past its wall-clock limit (killed by the parent)
    Memory,    ///< past its memory limit (killed by the parent)
    NoChild,   ///< the child could not be started or waited for
  } kind = NoChild;
  int signal = 0;
  int status = 0;
  /// The line of the child's standard error that says why it died
  /// (`LLVM ERROR: ...`), or why it could not be started.
  std::string report;
  /// Its standard error (up to 64 KiB): Refused, the diagnostics.
  std::string errors;
  /// Parsed: the module as the child wrote it back (bytecode).
  std::unique_ptr<llvm::MemoryBuffer> rewritten;
};

/// Exit statuses of a probe child.
inline constexpr int kProbeParsed = 0;
inline constexpr int kProbeRefused = 3;

/// Runs `parse` in a forked child under `limits`. It parses and verifies the
/// input as the caller would and, when that succeeds, writes the module as
/// bytecode to the stream it is given and returns true; on a refusal its
/// diagnostics go to llvm::errs() (the child's standard error) and it
/// returns false. The bytes written come back as `rewritten`, named `name`.
/// Only for a process with no other thread that may hold a lock the child
/// needs (the tools when they read their input, the fuzz targets).
ProbeResult probeInFork(llvm::function_ref<bool(llvm::raw_ostream &)> parse,
                        llvm::StringRef name, const SandboxLimits &limits);

/// Runs `tool --traced-probe-input name=NAME <limits>` with `bytes` on its
/// standard input and its standard output in memfds (the input sealed),
/// through posix_spawn: safe in a multi-threaded process. The tool is
/// traced-opt (probeMain); `environment` is its environment
/// (probeEnvironment).
ProbeResult probeInTool(llvm::StringRef tool, llvm::StringRef bytes,
                        llvm::StringRef name, const SandboxLimits &limits,
                        llvm::ArrayRef<std::string> environment);

/// This process's environment for a probe child, without LD_PRELOAD: the
/// tool needs nothing preloaded, and the sanitizer runtime `make
/// check-asan` preloads into Python would clash with the one linked into a
/// sanitized tool. Take it (and SandboxPolicy::fromEnv,
/// SandboxLimits::forInput) where nothing changes the environment
/// meanwhile: in Python, with the GIL held.
std::vector<std::string> probeEnvironment();

/// The flag that runs a tool as a probe child.
inline constexpr llvm::StringLiteral kProbeFlag = "--traced-probe-input";

/// The probe child's main: reads standard input (mapped when it is a
/// file), applies the limits in `args` (or the defaults for its size),
/// parses and verifies it with `registry`'s dialects as Python's loader
/// does, writes the module as bytecode to standard output, and exits
/// kProbeParsed; or prints the diagnostics as Python's loader words them
/// and exits kProbeRefused; or dies. Run by hand,
/// `traced-opt --traced-probe-input < file > /dev/null` reproduces a crash
/// in the foreground.
int probeMain(llvm::ArrayRef<llvm::StringRef> args,
              const DialectRegistry &registry);

/// In a probe child: applies `limits` to this process (RLIMIT_CPU,
/// RLIMIT_AS over its current size, RLIMIT_FSIZE, RLIMIT_STACK, no core
/// file), resets the handlers of crash signals, and makes LLVM's fatal
/// errors abort without running the process's exit or interrupt handlers.
void enterSandbox(const SandboxLimits &limits);

/// What the checked entry leaves the caller to parse.
struct CheckedInput {
  enum Kind {
    Direct,    ///< the input itself (text, or bytecode whose stamp
               ///< verified where the policy trusts it)
    Rewritten, ///< `rewritten`: the module the sandboxed child read, as it
               ///< wrote it back (bytecode, aligned for blobs)
    Refused,   ///< nothing: `message` holds the parser's diagnostics
    Failed,    ///< nothing: `message` says why (the stamp, a crash, a limit)
  } kind = Direct;
  std::unique_ptr<llvm::MemoryBuffer> rewritten;
  std::string message;
};

/// The checked entry for untrusted bytes: the stamp, then, as `policy`
/// asks, the probe (`probe` runs probeInFork or probeInTool) under
/// `limits` (default: SandboxLimits::forInput).
CheckedInput
checkUntrustedInput(llvm::StringRef bytes, const SandboxPolicy &policy,
                    llvm::function_ref<ProbeResult(const SandboxLimits &)> probe,
                    std::optional<SandboxLimits> limits = std::nullopt);


/// Writes `diag` as the tools' child and Python's loader word it:
/// `file:line:col: error: message` (the innermost file location; a traced
/// expr's module path, a NameLoc, as ` (in layer1.0)`), notes indented on
/// lines of their own. No trailing newline.
void formatDiagnostic(mlir::Diagnostic &diag, llvm::raw_ostream &os);

} // namespace traced
} // namespace mlir

#endif // TRACEDIR_SUPPORT_UNTRUSTED_H

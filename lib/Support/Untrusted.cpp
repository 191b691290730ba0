//===- Untrusted.cpp - the integrity stamp and the sandbox ----------------===//

#include "TracedIR/Support/Untrusted.h"
#include "TracedIR/Support/Blobs.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"
#include "llvm/Support/BLAKE3.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRACED_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TRACED_ASAN 1
#endif

using namespace mlir;

//===----------------------------------------------------------------------===//
// The integrity stamp
//===----------------------------------------------------------------------===//

static constexpr llvm::StringLiteral kMagic = "ML\xEFR";

bool traced::hasBytecodeMagic(llvm::StringRef bytes) {
  return bytes.starts_with(kMagic);
}

namespace {
/// Where a bytecode file's header puts its producer string: after the
/// magic number and the version (an MLIR varint), up to its NUL.
struct Header {
  size_t producerBegin = 0, producerEnd = 0; // [begin, end), end at the NUL
  uint64_t version = 0;
};
} // namespace

/// The header of `bytes`, or none when it is too short or its producer
/// string has no NUL within 4 KiB.
static std::optional<Header> parseHeader(llvm::StringRef bytes) {
  size_t pos = kMagic.size();
  if (bytes.size() <= pos)
    return std::nullopt;
  // MLIR's varint: the first byte's trailing zeros count the bytes that
  // follow it; all zeros means eight bytes follow.
  uint8_t first = bytes[pos];
  size_t length = first == 0 ? 9 : llvm::countr_zero(first) + 1;
  if (bytes.size() < pos + length)
    return std::nullopt;
  Header header;
  if (first == 0) {
    for (size_t i = 0; i < 8; ++i)
      header.version |= uint64_t(uint8_t(bytes[pos + 1 + i])) << (8 * i);
  } else {
    uint64_t value = 0;
    for (size_t i = 0; i < length; ++i)
      value |= uint64_t(uint8_t(bytes[pos + i])) << (8 * i);
    header.version = value >> length;
  }
  pos += length;
  size_t nul = bytes.substr(0, pos + 4096).find('\0', pos);
  if (nul == llvm::StringRef::npos)
    return std::nullopt;
  header.producerBegin = pos;
  header.producerEnd = nul;
  return header;
}

/// The BLAKE3 hash, in hex, of `bytes` without its producer string.
static std::string hashWithoutProducer(llvm::StringRef bytes,
                                       const Header &header) {
  llvm::BLAKE3 hasher;
  hasher.update(bytes.take_front(header.producerBegin));
  hasher.update(bytes.drop_front(header.producerEnd));
  llvm::BLAKE3Result<> digest = hasher.final();
  return llvm::toHex(llvm::ArrayRef<uint8_t>(digest.data(), digest.size()),
                     /*LowerCase=*/true);
}

static std::string stampPlaceholder() {
  return (traced::kStampPrefix + std::string(64, '0') + ":" + std::string(16, '0'))
      .str();
}

LogicalResult traced::writeStampedBytecode(Operation *op,
                                           llvm::raw_ostream &os,
                                           std::optional<int64_t> version,
                                           FallbackAsmResourceMap *fallback) {
  std::string placeholder = stampPlaceholder();
  std::optional<BytecodeWriterConfig> config;
  if (fallback)
    config.emplace(*fallback, placeholder);
  else
    config.emplace(placeholder);
  if (version)
    config->setDesiredBytecodeVersion(*version);
  std::string bytes;
  llvm::raw_string_ostream buffer(bytes);
  if (failed(writeBytecodeToFile(op, buffer, *config)))
    return failure();
  buffer.flush();
  // The writer put the placeholder where the stamp goes; the stamp has its
  // length, so no section moves.
  std::optional<Header> header = parseHeader(bytes);
  if (!header ||
      llvm::StringRef(bytes).slice(header->producerBegin,
                                   header->producerEnd) != placeholder)
    return op->emitError("the bytecode writer did not write the producer "
                         "string where TracedIR's integrity stamp goes");
  char size[17];
  std::snprintf(size, sizeof(size), "%016llx",
                static_cast<unsigned long long>(bytes.size()));
  std::string stamp =
      (kStampPrefix + hashWithoutProducer(bytes, *header) + ":" + size).str();
  assert(stamp.size() == kStampLength && "the stamp changed its length");
  std::memcpy(bytes.data() + header->producerBegin, stamp.data(),
              stamp.size());
  os << bytes;
  return success();
}

LogicalResult traced::restampBytecode(llvm::StringRef bytecode,
                                      const DialectRegistry &registry,
                                      bool allowUnregisteredDialects,
                                      llvm::raw_ostream &os,
                                      std::string &error) {
  std::optional<Header> header = parseHeader(bytecode);
  if (!hasBytecodeMagic(bytecode) || !header) {
    error = "not MLIR bytecode";
    return failure();
  }
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(allowUnregisteredDialects);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (diagnostics.empty())
      diagnostics = diag.str();
    return success();
  });
  FallbackAsmResourceMap fallback;
  ParserConfig config(&context, /*verifyAfterParse=*/false, &fallback);
  // A buffer of its own, at the blobs' alignment, owned by the source
  // manager: blobs are read in place.
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(
      alignForBlobs(llvm::MemoryBuffer::getMemBuffer(
          bytecode, "<output>", /*RequiresNullTerminator=*/false)),
      llvm::SMLoc());
  Block block;
  if (failed(parseSourceFile(sourceMgr, &block, config)) ||
      !llvm::hasSingleElement(block)) {
    error = "it does not read back as one operation: " + diagnostics;
    return failure();
  }
  if (failed(writeStampedBytecode(&block.front(), os, header->version,
                                  &fallback))) {
    error = "it does not write again: " + diagnostics;
    return failure();
  }
  return success();
}

FailureOr<traced::Stamp> traced::checkStamp(llvm::StringRef bytes,
                                            std::string &error) {
  if (!hasBytecodeMagic(bytes))
    return Stamp::NotBytecode;
  std::optional<Header> header = parseHeader(bytes);
  if (!header)
    return Stamp::Unstamped; // the reader will say what is wrong
  llvm::StringRef producer =
      bytes.slice(header->producerBegin, header->producerEnd);
  if (!producer.starts_with(kStampPrefix))
    return Stamp::Unstamped;
  llvm::StringRef hash = producer.drop_front(kStampPrefix.size()).take_front(64);
  llvm::StringRef size = producer.drop_front(kStampPrefix.size() + 65);
  uint64_t written = 0;
  if (producer.size() != kStampLength || producer[kStampPrefix.size() + 64] != ':' ||
      !llvm::all_of(hash, llvm::isHexDigit) ||
      size.getAsInteger(16, written)) {
    error = "corrupt bytecode: its TracedIR integrity stamp is damaged "
            "(the producer string in its header)";
    return failure();
  }
  if (written != bytes.size()) {
    error = (written > bytes.size()
                 ? "corrupt bytecode: truncated: the file has " +
                       llvm::Twine(bytes.size()) + " bytes, TracedIR wrote " +
                       llvm::Twine(written)
                 : "corrupt bytecode: the file has " +
                       llvm::Twine(bytes.size()) + " bytes, TracedIR wrote " +
                       llvm::Twine(written) + " (bytes were appended)")
                .str();
    return failure();
  }
  std::string actual = hashWithoutProducer(bytes, *header);
  if (!hash.equals_insensitive(actual)) {
    error = ("corrupt bytecode: checksum mismatch: its bytes changed after "
             "TracedIR wrote them (BLAKE3 " +
             actual.substr(0, 16) + "..., stamped " + hash.take_front(16) +
             "...)")
                .str();
    return failure();
  }
  return Stamp::Verified;
}

//===----------------------------------------------------------------------===//
// Limits and policy
//===----------------------------------------------------------------------===//

/// A positive number from the environment variable `name`, if set.
static std::optional<double> envNumber(const char *name) {
  const char *value = std::getenv(name);
  if (!value || !*value)
    return std::nullopt;
  char *end = nullptr;
  double number = std::strtod(value, &end);
  if (*end != '\0' || !(number > 0) || !std::isfinite(number))
    return std::nullopt;
  return number;
}

traced::SandboxLimits traced::SandboxLimits::forInput(size_t size) {
  SandboxLimits limits;
  double mib = double(size) / double(1 << 20);
  limits.cpuSeconds = 10 + std::ceil(mib / 4);
  if (std::optional<double> cpu = envNumber("TRACED_SANDBOX_TIMEOUT"))
    limits.cpuSeconds = *cpu;
  limits.wallSeconds = 2 * limits.cpuSeconds + 5;
  limits.memoryBytes = (uint64_t(1) << 30) + 8 * uint64_t(size);
  if (std::optional<double> mb = envNumber("TRACED_SANDBOX_MEMORY_MB"))
    limits.memoryBytes = uint64_t(*mb * double(1 << 20));
  if (std::optional<double> mb = envNumber("TRACED_SANDBOX_STACK_MB"))
    limits.stackBytes = uint64_t(*mb * double(1 << 20));
  return limits;
}

std::vector<std::string> traced::SandboxLimits::toArgs() const {
  return {"cpu=" + std::to_string(cpuSeconds),
          "memory=" + std::to_string(memoryBytes),
          "stack=" + std::to_string(stackBytes)};
}

std::optional<traced::SandboxLimits>
traced::SandboxLimits::fromArgs(llvm::ArrayRef<llvm::StringRef> args,
                                SandboxLimits limits) {
  for (llvm::StringRef arg : args) {
    auto [key, value] = arg.split('=');
    if (key == "cpu") {
      double cpu = 0;
      if (value.getAsDouble(cpu) || !(cpu > 0))
        return std::nullopt;
      limits.cpuSeconds = cpu;
    } else if (key == "memory") {
      if (value.getAsInteger(10, limits.memoryBytes))
        return std::nullopt;
    } else if (key == "stack") {
      if (value.getAsInteger(10, limits.stackBytes))
        return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  return limits;
}

traced::SandboxPolicy traced::SandboxPolicy::fromEnv() {
  SandboxPolicy policy;
  if (const char *value = std::getenv("TRACED_SANDBOX"))
    policy.stampedBytecode = llvm::StringRef(value) != "unstamped";
  return policy;
}

//===----------------------------------------------------------------------===//
// The child
//===----------------------------------------------------------------------===//

/// Resident and total mapped bytes of process `pid` (0: this one).
static std::pair<uint64_t, uint64_t> memoryOf(pid_t pid) {
  std::string path =
      pid ? "/proc/" + std::to_string(pid) + "/statm" : "/proc/self/statm";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return {0, 0};
  char text[128] = {0};
  ssize_t n = ::read(fd, text, sizeof(text) - 1);
  ::close(fd);
  if (n <= 0)
    return {0, 0};
  unsigned long long total = 0, resident = 0;
  if (std::sscanf(text, "%llu %llu", &total, &resident) != 2)
    return {0, 0};
  uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
  return {resident * page, total * page};
}

static void writeStderr(llvm::StringRef text) {
  while (!text.empty()) {
    ssize_t n = ::write(2, text.data(), text.size());
    if (n <= 0)
      return;
    text = text.drop_front(n);
  }
}

/// LLVM's fatal errors in a probe child: say why and abort, without the
/// process's exit handlers (a forked child shares its parent's) or LLVM's
/// interrupt handlers (which remove the parent's output files).
static void fatalInChild(void *, const char *reason, bool) {
  writeStderr("LLVM ERROR: ");
  writeStderr(reason);
  writeStderr("\n");
  std::signal(SIGABRT, SIG_DFL);
  std::abort();
}

/// Lowers the soft limit `resource` to `want` (never raises it).
static void lowerLimit(int resource, uint64_t want) {
  struct rlimit limit;
  if (::getrlimit(resource, &limit) != 0)
    return;
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > rlim_t(want))
    limit.rlim_cur = rlim_t(want);
  ::setrlimit(resource, &limit);
}

void traced::enterSandbox(const SandboxLimits &limits) {
  // Crash signals kill the child plainly: LLVM's handlers would print a
  // stack trace through the symbolizer and remove the parent's files.
  for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS,
                  SIGXCPU, SIGXFSZ, SIGPIPE})
    std::signal(sig, SIG_DFL);
  llvm::remove_fatal_error_handler();
  llvm::install_fatal_error_handler(fatalInChild, nullptr);

  lowerLimit(RLIMIT_CORE, 0);
  rlim_t cpu = rlim_t(std::ceil(limits.cpuSeconds));
  struct rlimit cpuLimit = {cpu, cpu + 1}; // SIGXCPU, then SIGKILL
  struct rlimit current;
  if (::getrlimit(RLIMIT_CPU, &current) == 0 &&
      (current.rlim_max == RLIM_INFINITY || current.rlim_max > cpu + 1))
    ::setrlimit(RLIMIT_CPU, &cpuLimit);
  else
    lowerLimit(RLIMIT_CPU, cpu);
  lowerLimit(RLIMIT_STACK, limits.stackBytes);
  lowerLimit(RLIMIT_FSIZE, limits.memoryBytes);
#ifndef TRACED_ASAN
  // Sanitizers reserve terabytes of shadow memory: there the parent's watch
  // of the resident size is the only memory limit.
  lowerLimit(RLIMIT_AS, memoryOf(0).second + limits.memoryBytes);
#endif
}

void traced::formatDiagnostic(Diagnostic &diag, llvm::raw_ostream &os) {
  Location where = diag.getLocation();
  auto name = dyn_cast<NameLoc>(where);
  if (auto loc = where->findInstanceOf<FileLineColLoc>())
    os << loc.getFilename().getValue() << ":" << loc.getLine() << ":"
       << loc.getColumn() << ": ";
  else if (!isa<UnknownLoc>(where))
    os << where << ": ";
  switch (diag.getSeverity()) {
  case DiagnosticSeverity::Error:
    os << "error: ";
    break;
  case DiagnosticSeverity::Warning:
    os << "warning: ";
    break;
  default:
    os << "note: ";
  }
  os << diag.str();
  if (name && !name.getName().getValue().empty())
    os << " (in " << name.getName().getValue() << ")";
  for (Diagnostic &note : diag.getNotes())
    os << "\n  note: " << note.str();
}

/// The child's diagnostics on stderr, as Python's loader words them.
static LogicalResult printDiagnostic(Diagnostic &diag) {
  std::string text;
  llvm::raw_string_ostream os(text);
  traced::formatDiagnostic(diag, os);
  os << "\n";
  writeStderr(text);
  return success();
}

int traced::probeMain(llvm::ArrayRef<llvm::StringRef> args,
                      const DialectRegistry &registry) {
  std::string name = "<untrusted input>";
  llvm::SmallVector<llvm::StringRef> limitArgs;
  for (llvm::StringRef arg : args) {
    if (arg.consume_front("name="))
      name = arg.str();
    else
      limitArgs.push_back(arg);
  }
  // A regular file (a memfd from probeInTool, or `< file` by hand) is
  // mapped: page-aligned, so bytecode blobs are read where they lie.
  std::unique_ptr<llvm::MemoryBuffer> input;
  struct stat st;
  if (::fstat(0, &st) == 0 && S_ISREG(st.st_mode)) {
    auto mapped = llvm::MemoryBuffer::getOpenFile(
        0, name, st.st_size, /*RequiresNullTerminator=*/false);
    if (mapped)
      input = std::move(*mapped);
  } else {
    auto read = llvm::MemoryBuffer::getSTDIN();
    if (read)
      input = llvm::MemoryBuffer::getMemBufferCopy((*read)->getBuffer(), name);
  }
  if (!input) {
    writeStderr("traced probe: cannot read standard input\n");
    return 2;
  }
  std::optional<SandboxLimits> limits = SandboxLimits::fromArgs(
      limitArgs, SandboxLimits::forInput(input->getBufferSize()));
  if (!limits) {
    writeStderr("traced probe: usage: traced-opt --traced-probe-input "
                "[name=NAME] [cpu=SECONDS] [memory=BYTES] [stack=BYTES]\n");
    return 2;
  }
  enterSandbox(*limits);

  // As Python's loader reads (python/src/Bindings.h, parseInto), but with
  // the buffer owned by the source manager: blobs are read in place.
  std::string error;
  if (failed(checkResourceBlobs(input->getBuffer(), error))) {
    writeStderr(name + ": error: " + error + "\n");
    ::_exit(kProbeRefused);
  }
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.allowUnregisteredDialects(false);
  context.printOpOnDiagnostic(false);
  context.getDiagEngine().registerHandler(printDiagnostic);
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(alignForBlobs(std::move(input)), llvm::SMLoc());
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module)
    ::_exit(kProbeRefused);
  llvm::raw_fd_ostream out(1, /*shouldClose=*/false);
  if (failed(writeBytecodeToFile(*module, out)))
    ::_exit(kProbeRefused);
  out.flush();
  // No destructors: the parent wants the bytes and the verdict.
  ::_exit(out.has_error() ? 2 : kProbeParsed);
}

//===----------------------------------------------------------------------===//
// The parent
//===----------------------------------------------------------------------===//

/// The line of the child's standard error that says why it died: the first
/// one naming an error (`LLVM ERROR: ...`, a sanitizer's `ERROR: ...`), else
/// the last one.
static std::string reportOf(llvm::StringRef err) {
  llvm::SmallVector<llvm::StringRef> lines;
  err.split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines)
    if (line.contains("ERROR"))
      return line.trim().take_front(300).str();
  return lines.empty() ? "" : lines.back().trim().take_front(300).str();
}

static constexpr size_t kMaxErrors = 64 << 10;

/// Waits for child `pid`, reading its standard error from `errFd` (which
/// it closes), killing it past the wall-clock limit or the resident size
/// `rssLimit`.
static traced::ProbeResult waitForChild(pid_t pid, int errFd,
                                        const traced::SandboxLimits &limits,
                                        uint64_t rssLimit) {
  using Clock = std::chrono::steady_clock;
  traced::ProbeResult result;
  Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(limits.wallSeconds));
  std::string err;
  bool open = true, killedWall = false, killedMemory = false;
  int status = 0;
  auto readSome = [&](int fd) {
    char chunk[4096];
    ssize_t got = ::read(fd, chunk, sizeof(chunk));
    if (got > 0 && err.size() < kMaxErrors)
      err.append(chunk, std::min(size_t(got), kMaxErrors - err.size()));
    return got;
  };
  for (;;) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid)
      break;
    if (r < 0 && errno != EINTR) {
      result.kind = traced::ProbeResult::NoChild;
      result.report = std::string("lost the sandboxed process: ") +
                      std::strerror(errno);
      if (open)
        ::close(errFd);
      return result;
    }
    bool late = Clock::now() >= deadline;
    if (late || memoryOf(pid).first > rssLimit) {
      (late ? killedWall : killedMemory) = true;
      ::kill(pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    if (open) {
      struct pollfd p = {errFd, POLLIN, 0};
      if (::poll(&p, 1, 20) > 0) {
        ssize_t got = readSome(errFd);
        if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN)) {
          ::close(errFd);
          open = false; // the child is exiting
        }
      }
    } else {
      ::usleep(200);
    }
  }
  if (open) { // what the child wrote before it ended
    int flags = ::fcntl(errFd, F_GETFL);
    ::fcntl(errFd, F_SETFL, flags | O_NONBLOCK);
    while (readSome(errFd) > 0) {
    }
    ::close(errFd);
  }
  result.report = reportOf(err);
  result.errors = std::move(err);
  result.status = status;
  if (killedWall) {
    result.kind = traced::ProbeResult::WallLimit;
  } else if (killedMemory) {
    result.kind = traced::ProbeResult::Memory;
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    // RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL a second later.
    result.kind = result.signal == SIGXCPU || result.signal == SIGKILL
                      ? traced::ProbeResult::CpuLimit
                      : traced::ProbeResult::Crashed;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == traced::kProbeParsed) {
    result.kind = traced::ProbeResult::Parsed;
  } else if (WIFEXITED(status) &&
             WEXITSTATUS(status) == traced::kProbeRefused) {
    result.kind = traced::ProbeResult::Refused;
  } else {
    result.kind = traced::ProbeResult::Crashed;
  }
  return result;
}

/// The parent's resident size plus the child's budget: a fork starts with
/// its parent's pages, a spawned tool with fewer than a Python process.
static uint64_t rssLimitFor(const traced::SandboxLimits &limits) {
  return memoryOf(0).first + limits.memoryBytes;
}

/// A memfd for the child's output.
static int outputFile() {
  return ::memfd_create("traced-sandbox-output", MFD_CLOEXEC);
}

/// Takes what the child wrote to `fd` (which it closes) as a buffer named
/// `name`, when it parsed.
static void takeOutput(traced::ProbeResult &result, int fd,
                       llvm::StringRef name) {
  if (result.kind == traced::ProbeResult::Parsed) {
    struct stat st;
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      auto buffer = llvm::MemoryBuffer::getOpenFile(
          fd, name, uint64_t(st.st_size), /*RequiresNullTerminator=*/false);
      if (buffer)
        result.rewritten = std::move(*buffer);
    }
    if (!result.rewritten) {
      result.kind = traced::ProbeResult::Crashed;
      result.report = "it parsed but wrote back no module";
    }
  }
  ::close(fd);
}

traced::ProbeResult
traced::probeInFork(llvm::function_ref<bool(llvm::raw_ostream &)> parse,
                    llvm::StringRef name, const SandboxLimits &limits) {
  ProbeResult result;
  auto failWith = [&](const char *what) {
    result.kind = ProbeResult::NoChild;
    result.report = std::string(what) + ": " + std::strerror(errno);
    return std::move(result);
  };
  int output = outputFile();
  if (output < 0)
    return failWith("memfd_create");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    ::close(output);
    return failWith("pipe");
  }
  uint64_t rssLimit = rssLimitFor(limits);
  llvm::errs().flush();
  llvm::outs().flush();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    ::close(output);
    return failWith("fork");
  }
  if (pid == 0) {
    ::dup2(fds[1], 2);
    int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null >= 0)
      ::dup2(null, 1);
    enterSandbox(limits);
    bool parsed;
    {
      llvm::raw_fd_ostream out(output, /*shouldClose=*/false);
      parsed = parse(out);
      out.flush();
      if (out.has_error())
        ::_exit(2);
    }
    ::_exit(parsed ? kProbeParsed : kProbeRefused);
  }
  ::close(fds[1]);
  result = waitForChild(pid, fds[0], limits, rssLimit);
  takeOutput(result, output, name);
  return result;
}

std::vector<std::string> traced::probeEnvironment() {
  std::vector<std::string> environment;
  for (char **env = environ; env && *env; ++env)
    if (!llvm::StringRef(*env).starts_with("LD_PRELOAD="))
      environment.emplace_back(*env);
  return environment;
}

traced::ProbeResult traced::probeInTool(llvm::StringRef tool,
                                        llvm::StringRef bytes,
                                        llvm::StringRef name,
                                        const SandboxLimits &limits,
                                        llvm::ArrayRef<std::string> environment) {
  ProbeResult result;
  std::vector<int> fds;
  auto closeAll = [&] {
    for (int fd : fds)
      ::close(fd);
  };
  auto failWith = [&](const llvm::Twine &what) {
    result.kind = ProbeResult::NoChild;
    result.report = (what + ": " + std::strerror(errno)).str();
    closeAll();
    return std::move(result);
  };
  // The bytes go in a sealed memfd, the child's standard input: it maps
  // them, and nobody can change them while it reads.
  int input = ::memfd_create("traced-untrusted-input",
                             MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (input < 0)
    return failWith("memfd_create");
  fds.push_back(input);
  for (llvm::StringRef rest = bytes; !rest.empty();) {
    ssize_t n = ::write(input, rest.data(), rest.size());
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return failWith("writing the input for the sandboxed process");
    rest = rest.drop_front(n);
  }
  ::lseek(input, 0, SEEK_SET);
  ::fcntl(input, F_ADD_SEALS,
          F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL);
  int output = outputFile();
  if (output < 0)
    return failWith("memfd_create");
  fds.push_back(output);
  int err[2];
  if (::pipe2(err, O_CLOEXEC) != 0)
    return failWith("pipe");
  fds.push_back(err[1]);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input, 0);
  posix_spawn_file_actions_adddup2(&actions, output, 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
#endif
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t mask, defaults;
  sigemptyset(&mask);
  sigfillset(&defaults);
  sigdelset(&defaults, SIGKILL);
  sigdelset(&defaults, SIGSTOP);
  posix_spawnattr_setsigmask(&attr, &mask);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  std::string path = tool.str();
  std::vector<std::string> args = {path, kProbeFlag.str(),
                                   "name=" + name.str()};
  for (std::string &arg : limits.toArgs())
    args.push_back(std::move(arg));
  std::vector<char *> argv;
  for (std::string &arg : args)
    argv.push_back(arg.data());
  argv.push_back(nullptr);

  std::vector<char *> envp;
  for (const std::string &entry : environment)
    envp.push_back(const_cast<char *>(entry.c_str()));
  envp.push_back(nullptr);

  uint64_t rssLimit = rssLimitFor(limits);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, path.c_str(), &actions, &attr, argv.data(),
                         envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    ::close(err[0]);
    errno = rc;
    return failWith("cannot start the sandbox tool '" + tool +
                    "' (TRACED_SANDBOX_TOOL names another)");
  }
  ::close(input);
  ::close(err[1]);
  result = waitForChild(pid, err[0], limits, rssLimit);
  takeOutput(result, output, name);
  return result;
}

//===----------------------------------------------------------------------===//
// The checked entry
//===----------------------------------------------------------------------===//

static std::string formatSeconds(double seconds) {
  std::string s = llvm::formatv("{0:F1}", seconds).str();
  if (llvm::StringRef(s).ends_with(".0"))
    s.resize(s.size() - 2);
  return s;
}

traced::CheckedInput traced::checkUntrustedInput(
    llvm::StringRef bytes, const SandboxPolicy &policy,
    llvm::function_ref<ProbeResult(const SandboxLimits &)> probe,
    std::optional<SandboxLimits> chosen) {
  CheckedInput checked;
  FailureOr<Stamp> stamp = checkStamp(bytes, checked.message);
  if (failed(stamp)) {
    checked.kind = CheckedInput::Failed;
    return checked;
  }
  if (*stamp == Stamp::NotBytecode ||
      (*stamp == Stamp::Verified && !policy.stampedBytecode))
    return checked; // Direct
  SandboxLimits limits =
      chosen ? *chosen : SandboxLimits::forInput(bytes.size());
  ProbeResult r = probe(limits);
  std::string where = " in the sandboxed process that reads untrusted "
                      "bytecode first";
  std::string report = r.report.empty() ? "" : ": " + r.report;
  uint64_t mib = limits.memoryBytes >> 20;
  checked.kind = CheckedInput::Failed;
  switch (r.kind) {
  case ProbeResult::Parsed:
    checked.kind = CheckedInput::Rewritten;
    checked.rewritten = alignForBlobs(std::move(r.rewritten));
    return checked;
  case ProbeResult::Refused:
    checked.kind = CheckedInput::Refused;
    checked.message = llvm::StringRef(r.errors).rtrim().str();
    return checked;
  case ProbeResult::Crashed: {
    std::string how =
        r.signal ? "crashed (signal " + std::to_string(r.signal) + ", " +
                       std::string(strsignal(r.signal)) + ")"
                 : "failed (exit status " +
                       std::to_string(WIFEXITED(r.status)
                                          ? WEXITSTATUS(r.status)
                                          : r.status) +
                       ")";
    checked.message = "corrupt bytecode: the reader " + how + where + report;
    if (llvm::StringRef(r.report).contains("out of memory") ||
        llvm::StringRef(r.report).contains("Allocation failed"))
      checked.message += " (its memory limit is " + std::to_string(mib) +
                         " MiB; TRACED_SANDBOX_MEMORY_MB raises it)";
    return checked;
  }
  case ProbeResult::CpuLimit:
    checked.message = "corrupt bytecode: the reader did not finish within "
                      "its CPU-time limit of " +
                      formatSeconds(std::ceil(limits.cpuSeconds)) + " s" +
                      where + " (TRACED_SANDBOX_TIMEOUT raises it)";
    return checked;
  case ProbeResult::WallLimit:
    checked.message = "corrupt bytecode: the reader did not finish within " +
                      formatSeconds(limits.wallSeconds) + " s (wall clock)" +
                      where + " (TRACED_SANDBOX_TIMEOUT raises it)";
    return checked;
  case ProbeResult::Memory:
    checked.message = "corrupt bytecode: the reader needed more than its "
                      "memory limit of " +
                      std::to_string(mib) + " MiB" + where +
                      " (TRACED_SANDBOX_MEMORY_MB raises it)";
    return checked;
  case ProbeResult::NoChild:
    checked.message =
        "cannot check untrusted bytecode in a sandboxed process: " + r.report;
    return checked;
  }
  return checked;
}

//===- Progress.cpp - pipeline progress on a terminal ---------------------===//

#include "TracedIR/Support/Progress.h"

#include "mlir/IR/Operation.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <unistd.h>

using namespace mlir;
using namespace mlir::traced;

bool traced::progressWanted() {
  if (const char *env = std::getenv("TRACED_PROGRESS"))
    return StringRef(env) != "0" && !StringRef(env).empty();
  return isatty(STDERR_FILENO);
}

namespace {
/// Serializes the line's writers: nested pass managers run their passes on
/// several threads.
std::mutex &lineMutex() {
  static std::mutex m;
  return m;
}

/// Rewrites the line (carriage return, erase to the end of the line); long
/// names are cut to stay within one 100-column line.
void writeLine(StringRef text) {
  std::string line = text.str();
  if (line.size() > 99)
    line = line.substr(0, 96) + "...";
  llvm::errs() << "\r\x1b[K" << line;
  llvm::errs().flush();
}

class ProgressInstrumentation : public PassInstrumentation {
public:
  ProgressInstrumentation(StringRef title, PassManager &pm)
      : title(title.str()), pm(pm) {}
  ~ProgressInstrumentation() override { clearProgress(); }

  void runBeforePass(Pass *pass, Operation *op) override {
    std::lock_guard<std::mutex> lock(lineMutex());
    auto now = std::chrono::steady_clock::now();
    bool topLevel = !op->getParentOp();
    if (topLevel) {
      // Counted when the pipeline starts: finalizing it merges adjacent
      // nested pipelines, so it may hold fewer passes than were added.
      if (index++ == 0)
        total = pm.size();
    } else if (!lastTopLevel && now - last < std::chrono::milliseconds(50)) {
      // Nested passes run once per function: after the first one under
      // each top-level pass, show one every 50 ms, not thousands.
      return;
    }
    last = now;
    lastTopLevel = topLevel;
    StringRef name = pass->getArgument();
    std::string where;
    if (topLevel && name.empty())
      where = "nested passes";
    else if (topLevel)
      where = name.str();
    else
      where = (op->getName().getStringRef() + ": " +
               (name.empty() ? pass->getName() : name))
                  .str();
    writeLine(title + " [" + std::to_string(std::min<unsigned>(index, total)) + "/" +
              std::to_string(total) + "] " + where);
  }

private:
  std::string title;
  PassManager &pm;
  unsigned total = 0;
  unsigned index = 0;
  std::chrono::steady_clock::time_point last;
  bool lastTopLevel = false;
};
} // namespace

void traced::addProgress(PassManager &pm, StringRef title) {
  pm.addInstrumentation(std::make_unique<ProgressInstrumentation>(title, pm));
}

void traced::showProgress(StringRef title, StringRef stage) {
  std::lock_guard<std::mutex> lock(lineMutex());
  writeLine((title + " " + stage).str());
}

void traced::clearProgress() {
  llvm::errs() << "\r\x1b[K";
  llvm::errs().flush();
}

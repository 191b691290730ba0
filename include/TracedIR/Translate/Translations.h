//===- Translations.h - the trace translations ------------------*- C++ -*-===//

#ifndef TRACEDIR_TRANSLATE_TRANSLATIONS_H
#define TRACEDIR_TRANSLATE_TRANSLATIONS_H

namespace mlir::traced {

/// Registers `traced-translate --import-trace`, `--export-trace` and
/// `--traced-to-graph-text`.
void registerTraceTranslations();

} // namespace mlir::traced

#endif // TRACEDIR_TRANSLATE_TRANSLATIONS_H

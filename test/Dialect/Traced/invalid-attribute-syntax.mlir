// RUN: traced-opt %s -split-input-file -verify-diagnostics

traced.module @M class "__main__.M" {
  // expected-error @below {{operands are not allowed here; only Python constants}}
  attribute @a : i64 = %x
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{expected a Python value, got unit}}
  attribute @a : i64 = unit
}

// -----

traced.module @M class "__main__.M" {
  // expected-error @below {{expected '='}}
  attribute @a : i64 3
}

// RUN: traced-opt %s --traced-decompose=targets=torch.relu --verify-diagnostics

// expected-error @+1 {{traced-decompose: 'torch.relu' is not an op-library entry with a decomposition}}
module {
}

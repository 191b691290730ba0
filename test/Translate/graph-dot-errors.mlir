// RUN: traced-translate --traced-to-dot --split-input-file --verify-diagnostics %s

// expected-error @below {{no root traced.module to draw}}
module {
  traced.module @Leaf class "torch.nn.ReLU" {
  }
}

// -----

// expected-error @below {{the root module @Net has no forward graph to draw}}
traced.module root @Net class "__main__.Net" {
}

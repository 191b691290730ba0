"""Bad input gives traced.Error with a location; nothing crashes."""
import inspect

import pytest
import torch
import torch.nn as nn

import traced


class Branchy(nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            return x * 2
        return -x


def test_untraceable_module_names_the_op_and_line():
    line = inspect.getsourcelines(Branchy.forward)[1] + 1
    with pytest.raises(traced.Error) as info:
        traced.trace(Branchy(), torch.ones(3), mode="symbolic")
    message = str(info.value)
    assert "control flow" in message
    assert f"test_errors.py:{line}: if x.sum() > 0:" in message


def test_auto_specializes_control_flow_to_the_example():
    tm = traced.trace(Branchy(), torch.ones(3))
    text = str(tm.graph)
    assert "__mul__" in text or "mul(" in text
    assert "neg" not in text


def test_parse_errors_carry_the_diagnostic():
    with pytest.raises(traced.Error, match=r"<string>:1:\d+: error: "):
        traced.parse('traced.module @M class 1 {}')
    with pytest.raises(traced.Error, match="has no attribute 'w'"):
        traced.parse("""
          traced.module root @M class "m.M" {
            graph @forward(%self: !traced.module<@M>) {
              %0 = getattr %self["w"] : !traced.module<@M> -> i64
              output
            }
          }""")
    with pytest.raises(traced.Error):
        traced.parse(b"\x00\x01garbage")


def test_misuse():
    with pytest.raises(traced.Error, match="unknown tracing mode"):
        traced.trace(Branchy(), torch.ones(3), mode="magic")
    tm = traced.parse('traced.module @M class "m.M" {\n}')
    with pytest.raises(traced.Error, match="no root"):
        tm.graph
    with pytest.raises(traced.Error, match="no traced.module @Nope"):
        tm.module("Nope").info
    with pytest.raises(traced.Error, match="has no graph"):
        tm.module("M").graph.inputs

"""Every op-library entry has one family, the same in each layer that
implements it: its interpreter kernel (lib/Interpreter/Kernels/<Family>.cpp),
its lowering (lib/Conversion/TracedToLinalg/<Family>.cpp) and its
decomposition (lib/Transforms/Decompose/<Family>.cpp). The layers record the
family of the file whose populate function registers each entry, loops and
helper calls included (traced._traced.op_families)."""
import pytest

from traced import _traced

FAMILIES = {
    "Elementwise",
    "Factory",
    "Linalg",
    "Loss",
    "Norm",
    "Pool",
    "Quantized",
    "Reduce",
    "Shape",
    "Index",
    "Sort",
    "Backward",
}

LAYERS = ("kernel", "lowering", "decomposition")


@pytest.fixture(scope="module")
def families():
    return _traced.op_families()


def test_layers_agree(families):
    disagree = {
        entry: layers
        for entry, layers in families.items()
        if len(set(layers.values())) > 1
    }
    assert not disagree, (
        f"{len(disagree)} entries are in different families in different "
        f"layers (move them to one family's files): {disagree}")


def test_known_families(families):
    unknown = {
        entry: layers
        for entry, layers in families.items()
        if not set(layers.values()) <= FAMILIES
    }
    assert not unknown, f"families other than {sorted(FAMILIES)}: {unknown}"
    assert all(set(layers) <= set(LAYERS) for layers in families.values())


def test_every_entry_has_a_kernel_family(families):
    missing = [
        entry for entry in _traced.op_library_targets()
        if "kernel" not in families.get(entry, {})
    ]
    assert not missing, f"entries without a kernel family: {missing}"


def test_every_layer_is_recorded(families):
    """The recorded layers are the implemented ones."""
    lowered = set(_traced.lowered_targets())
    decomposed = set(_traced.decomposed_targets())
    for entry, layers in families.items():
        if "decomposition" in layers:
            assert entry in decomposed, entry
        if "lowering" in layers:
            assert entry in lowered, entry
    assert decomposed <= {
        e for e, layers in families.items() if "decomposition" in layers}

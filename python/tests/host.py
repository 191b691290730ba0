"""What this machine's CPU has, where torch 1.13's results or ours depend
on it (docs/quantization.md, "Numerics"; docs/cpu.md)."""


def cpu_flags():
    """The flags of /proc/cpuinfo's first processor ("" elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


FLAGS = cpu_flags()
# oneDNN's int8 sums: exact with VNNI, pairs saturated in int16 without.
VNNI = bool(FLAGS & {"avx512_vnni", "avx_vnni"})
# The CPU pipeline's register tile: 32 columns with AVX-512, 16 without.
AVX512 = "avx512f" in FLAGS
# torch's bfloat16 convolutions through oneDNN (else its slow_conv path).
ONEDNN_BF16 = "avx512bw" in FLAGS

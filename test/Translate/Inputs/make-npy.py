#!/usr/bin/env python3
"""Writes the .npy side files of json-npy.json (run from this directory).

Small, fixed values, so that the lit tests can check the weights' bytes in
the printed dense_resource blobs. index.npy uses .npy format version 2.0.
"""
import numpy as np

np.save("weights/bn_weight.npy", np.array([1.0, 0.5, -0.25, 2.0], np.float32))
np.save("weights/bn_bias.npy", np.array([0.0, 0.125, -1.0, 4.0], np.float32))
np.save("weights/bn_running_mean.npy", np.array([0.5, 0.5, 0.5, 0.5], np.float32))
np.save("weights/bn_running_var.npy", np.array([1.0, 2.0, 3.0, 4.0], np.float32))
np.save("weights/mask.npy", np.array([True, False, True, True]))
np.save("weights/pixels.npy", np.array([0, 128, 255], np.uint8))
np.save("weights/half.npy", np.array([1.0, -2.0], np.float16))
with open("weights/index.npy", "wb") as f:
    np.lib.format.write_array(f, np.array([[1, 2], [3, -4]], np.int64),
                              version=(2, 0))
# For the error tests: big-endian data and a Fortran-order matrix.
np.save("weights/big_endian.npy", np.array([1.0, 2.0], ">f4"))
np.save("weights/fortran.npy", np.asfortranarray(np.ones((2, 3), np.float32)))
# json-dtypes.json: bool, uint8, int16 and float16 tensors, a 0-d one and an
# empty one.
np.save("weights/dtypes_flags.npy", np.array([False, True, False]))
np.save("weights/dtypes_pixels.npy", np.array([10, 128, 255], np.uint8))
np.save("weights/dtypes_shift.npy", np.array([1, 3], np.int16))
np.save("weights/dtypes_half.npy", np.array([0.5, -3.0], np.float16))
np.save("weights/dtypes_scale.npy", np.array(1.5, np.float32))
np.save("weights/dtypes_empty.npy", np.zeros((2, 0), np.float32))
# For the error tests: an .npy file whose data stops short.
with open("weights/bn_weight.npy", "rb") as f:
    data = f.read()
with open("weights/truncated.npy", "wb") as f:
    f.write(data[:-2])

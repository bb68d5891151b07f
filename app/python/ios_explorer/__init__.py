# SPDX-License-Identifier: Apache-2.0
"""IOS Explorer's engine from Python: load models, run any registered scheduler under any
registered cost model, simulate and export timelines, read and write the project's files.

See docs/python.md. Errors from the engine raise :class:`Error` with the engine's message.
"""
from . import _native
from ._native import (Cancelled, Error, Model, Schedule, cost_models, devices, load_schedule,
                      models, onnx_available, schedule, schedulers)

__all__ = ["Cancelled", "Error", "Model", "Schedule", "cost_models", "devices", "load",
           "load_onnx_bytes", "load_schedule", "models", "onnx_available", "schedule",
           "schedulers"]


def load(source, *, input_shape=None, allow_opaque=False):
    """Load a model: a file path (.ios.json, .json, .onnx), a bundled name (see models()),
    a generated one (random_dag:N[:SEED]) or serialized ONNX ModelProto bytes."""
    if isinstance(source, (bytes, bytearray, memoryview)):
        return _native.load_onnx_bytes(bytes(source), input_shape=input_shape,
                                       allow_opaque=allow_opaque)
    return _native.load(str(source), input_shape=input_shape, allow_opaque=allow_opaque)


def load_onnx_bytes(data, *, source="<bytes>", input_shape=None, allow_opaque=False):
    """Load a serialized ONNX ModelProto; `source` names it in errors and warnings."""
    return _native.load_onnx_bytes(data, source=source, input_shape=input_shape,
                                   allow_opaque=allow_opaque)

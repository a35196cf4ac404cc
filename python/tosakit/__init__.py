"""tosakit: a TOSA 1.0 toolchain from Python.

Load, build (tosakit.lang), import (ONNX), calibrate, quantize, run and check TOSA models; numpy arrays in and
out. The functions mirror the CLI verbs and call the same C++ library functions; failures raise
:class:`tosakit.Error` subclasses whose message, kind and exit code are the CLI's. See docs/API.md, "Python".
"""

from . import _tosakit, errors
from ._tosakit import (BenchReport, Module, Session, bench, convert, dis, gen_data, import_onnx, import_tflite, load,
                       save, validate, version)
from .errors import BadInput, Error, InternalError, SpecError, Unpredictable, Unsupported

__version__ = version()

__all__ = [
    "Error", "BadInput", "SpecError", "Unpredictable", "Unsupported", "InternalError", "errors",
    "Module", "Session", "load", "save", "convert", "dis", "validate", "version", "import_onnx", "import_tflite", "gen_data",
    "bench", "BenchReport",
]

# Parts built only with their libraries (quantization, compliance checking, the operator API).
for _name in ("calibrate", "quantize", "export_qdq", "quant_params", "load_sample", "read_calibration_table",
              "CalibrationTable", "CalibrationEntry", "check", "CheckReport", "CheckEntry", "compare", "TensorComparison",
              "CompareReport", "verify_quantized", "QuantizeVerification", "info", "cut", "graph", "visual"):
    if hasattr(_tosakit, _name):
        globals()[_name] = getattr(_tosakit, _name)
        __all__.append(_name)
if hasattr(_tosakit, "lang"):
    from . import lang  # noqa: E402
    __all__.append("lang")
del _name

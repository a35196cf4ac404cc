"""Type stubs of the tosakit package (docs/API.md, "Python")."""
from os import PathLike
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union, overload

import numpy as np

from . import errors as errors
from . import lang as lang
from .errors import BadInput as BadInput
from .errors import Error as Error
from .errors import InternalError as InternalError
from .errors import SpecError as SpecError
from .errors import Unpredictable as Unpredictable
from .errors import Unsupported as Unsupported

__version__: str

Path = Union[str, PathLike[str]]
Arrays = Dict[str, np.ndarray]
TensorSet = Union[Mapping[str, np.ndarray], Path]  # a dict of arrays or an .npz file
ModelLike = Union["Module", Path]
TypeInfo = Tuple[str, str, Tuple[int, ...]]  # (name, tosakit dtype, shape)

class Module:
    """A TOSA module (functions, variables, target), loaded, imported, quantized or built."""
    @property
    def origin(self) -> str: ...
    @property
    def functions(self) -> List[str]: ...
    def input_names(self, function: str = "main") -> List[str]: ...
    def output_names(self, function: str = "main") -> List[str]: ...
    def input_types(self, function: str = "main") -> List[TypeInfo]: ...
    def output_types(self, function: str = "main") -> List[TypeInfo]: ...
    def to_mlir(self) -> str: ...

class Session:
    """A model ready to run many times (variables persist across runs)."""
    def __init__(self, model: ModelLike, backend: Optional[str] = None, threads: int = 0,
                 precise: bool = False) -> None: ...
    @overload
    def run(self, inputs: Mapping[str, np.ndarray]) -> Arrays: ...
    @overload
    def run(self, inputs: Mapping[str, np.ndarray], intermediates: bool = ..., function: str = ...,
            tosa_types: bool = ...) -> Union[Arrays, Tuple[Arrays, Arrays]]: ...
    @property
    def input_names(self) -> List[str]: ...
    @property
    def output_names(self) -> List[str]: ...
    @property
    def backend(self) -> str: ...
    @property
    def notes(self) -> List[str]: ...
    def _cpp_seconds_per_run(self, inputs: Mapping[str, np.ndarray], iterations: int = 10,
                             function: str = "main") -> float: ...

def load(path: Path) -> Module: ...
def save(module: Module, path: Path) -> None: ...
def convert(input: Path, output: Path) -> None: ...
def dis(path: Path) -> str: ...
def validate(model: ModelLike) -> List[str]: ...
def version() -> str: ...
def import_onnx(path: Path, input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
                bind_inputs: Optional[Mapping[str, np.ndarray]] = None, output_names: Sequence[str] = (),
                nhwc_io: bool = False, check: bool = True, opset_convert: bool = True, qdq: str = "fold",
                qdq_integer_io: bool = False, level: str = "8k", preprocess: Optional[Mapping[str, Any]] = None,
                test_input: Optional[Path] = None, test_reference: Optional[Path] = None, min_cosine: float = 0.99,
                min_euclidean: float = 0.99, backend: str = "fast", threads: int = 0) -> Module: ...
def import_tflite(path: Path) -> Module: ...
def gen_data(model: ModelLike, set: int = 0, seed: int = 0, function: str = "main") -> Arrays: ...

class BenchReport:
    model: str
    backend: str
    threads: int
    isa: str
    load_ms: float
    compile_ms: float
    run_ms: List[float]
    min_ms: float
    median_ms: float
    max_ms: float
    notes: List[str]
    @property
    def memory_ratio(self) -> float: ...
    def to_text(self) -> str: ...
    def to_json(self) -> str: ...

def bench(model: Path, inputs: Union[None, Path, Mapping[str, np.ndarray]] = None, function: str = "main",
          warmup: int = 3, iterations: int = 20, profile: bool = False, backend: str = "fast", threads: int = 0,
          isa: str = "") -> BenchReport: ...

class CalibrationEntry:
    name: str
    threshold: float
    min: float
    max: float

class CalibrationTable:
    header: List[Tuple[str, str]]
    entries: List[CalibrationEntry]
    def find(self, name: str) -> Optional[CalibrationEntry]: ...
    def header_value(self, key: str) -> str: ...
    def to_text(self) -> str: ...
    def save(self, path: Path) -> None: ...
    def __len__(self) -> int: ...

def read_calibration_table(path: Path) -> CalibrationTable: ...
def calibrate(model: ModelLike, samples: Union[Path, Sequence[Union[Path, Mapping[str, np.ndarray]]]],
              method: str = "kld", input_num: int = 0, tune_num: int = 5, histogram_bins: int = 2048,
              we: bool = False, bc: bool = False, search_threshold: bool = False, backend: str = "fast",
              threads: int = 0, function: str = "main", equalize_activations: bool = False) -> CalibrationTable: ...
def quantize(model: ModelLike, table: Union[CalibrationTable, Path], mode: str = "INT8", asymmetric: bool = False,
             per_tensor: bool = False, quant_input: bool = False, quant_output: bool = False,
             fuse_preprocess: bool = False, quantize_table: Union[None, Path, Mapping[str, str]] = None, function: str = "main") -> Module: ...
def export_qdq(model: Path, table: Union[CalibrationTable, Path], output: Path,
               input_shapes: Optional[Mapping[str, Sequence[int]]] = None, per_tensor: bool = False) -> None: ...
def load_sample(model: ModelLike, path: Path, function: str = "main") -> Arrays: ...
def quant_params(module: Module, function: str = "main") -> Dict[str, Tuple[float, int]]: ...

class TensorComparison:
    name: str
    shape: str
    dequantized: bool
    cosine: float
    euclidean: float
    sqnr: float
    max_abs_diff: float
    passed: bool
    note: str

class CompareReport:
    rows: List[TensorComparison]
    only_in_a: List[str]
    only_in_b: List[str]
    @property
    def all_pass(self) -> bool: ...
    def __bool__(self) -> bool: ...

def compare(a: TensorSet, b: TensorSet, min_cosine: float = 0.99, min_euclidean: float = 0.9,
            excepts: Sequence[str] = (), quant_params: Union[None, Module, Mapping[str, Tuple[float, int]]] = None,
            function: str = "main") -> CompareReport: ...

class QuantizeVerification:
    outputs: CompareReport
    layers: CompareReport
    @property
    def passed(self) -> bool: ...
    def __bool__(self) -> bool: ...

def verify_quantized(float_model: ModelLike, quantized: ModelLike, test_input: Path, test_reference: Path,
                     min_cosine: float = 0.99, min_euclidean: float = 0.95, backend: str = "fast",
                     threads: int = 0) -> QuantizeVerification: ...

class CheckEntry:
    name: str
    op: str
    location: str
    rule: str
    section: str
    verdict: str  # "compliant", "NOT compliant", "not judged"
    worst: float
    worst_index: int
    reason: str

class CheckReport:
    per_op: bool
    allow_not_judged: bool
    entries: List[CheckEntry]
    notes: List[str]
    @property
    def compliant(self) -> bool: ...
    @property
    def verdict(self) -> str: ...
    @property
    def exit_code(self) -> int: ...
    def to_text(self) -> str: ...
    def to_json(self) -> str: ...
    def __bool__(self) -> bool: ...

def check(model: ModelLike, result: Optional[TensorSet] = None, inputs: Optional[TensorSet] = None,
          reference: Optional[TensorSet] = None, bounds: Optional[TensorSet] = None,
          intermediates: Optional[TensorSet] = None, mode: str = "", test_set: int = -1,
          function: str = "main", backend: str = "", threads: int = 0, per_op: bool = False,
          allow_not_judged: bool = False) -> CheckReport: ...

def info(model: ModelLike, function: str = "main", plan: bool = True) -> Dict[str, Any]: ...
def cut(model: ModelLike, inputs: Sequence[str], outputs: Sequence[str], function: str = "main") -> Module: ...
def graph(model: ModelLike, output: Optional[Path] = None, function: str = "main",
          collapse_constants: bool = False) -> Optional[str]: ...
def visual(float_model: ModelLike, quant_model: ModelLike, samples: Union[Mapping[str, np.ndarray], Sequence[Mapping[str, np.ndarray]]],
           output: Optional[Path] = None, min_cosine: float = 0.99, min_euclidean: float = 0.9, function: str = "main",
           backend: str = "fast") -> Optional[str]: ...

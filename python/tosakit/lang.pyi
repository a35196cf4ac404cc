"""Type stubs of tosakit.lang (the BMLang-style operator API; include/tosakit/lang.h)."""
from enum import Enum
from os import PathLike
from typing import Dict, List, Optional, Sequence, Union

import numpy as np

from . import Module

DTypeLike = Union[str, type, np.dtype]

class QCalMode(Enum):
    LowPrecisionSymmetric = 0
    HighPrecisionSymmetric = 1
    HighPrecisionAsymmetric = 2

LowPrecisionSymmetric: QCalMode
HighPrecisionSymmetric: QCalMode
HighPrecisionAsymmetric: QCalMode

class PoolType(Enum):
    MAX = 0
    AVE = 1

MAX: PoolType
AVE: PoolType

class ActiveType(Enum):
    ACTIVE_TANH = 0
    ACTIVE_SIGMOID = 1
    ACTIVE_RELU = 2
    ACTIVE_EXP = 3
    ACTIVE_ELU = 4
    ACTIVE_SQRT = 5
    ACTIVE_SQUARE = 6
    ACTIVE_RSQRT = 7
    ACTIVE_ABSVAL = 8
    ACTIVE_LN = 9
    ACTIVE_ROUND = 10
    ACTIVE_CEIL = 11
    ACTIVE_FLOOR = 12
    ACTIVE_SIN = 13
    ACTIVE_COS = 14
    ACTIVE_LEAKY_RELU = 15

ACTIVE_TANH: ActiveType
ACTIVE_SIGMOID: ActiveType
ACTIVE_RELU: ActiveType
ACTIVE_EXP: ActiveType
ACTIVE_ELU: ActiveType
ACTIVE_SQRT: ActiveType
ACTIVE_SQUARE: ActiveType
ACTIVE_RSQRT: ActiveType
ACTIVE_ABSVAL: ActiveType
ACTIVE_LN: ActiveType
ACTIVE_ROUND: ActiveType
ACTIVE_CEIL: ActiveType
ACTIVE_FLOOR: ActiveType
ACTIVE_SIN: ActiveType
ACTIVE_COS: ActiveType
ACTIVE_LEAKY_RELU: ActiveType

class PadType(Enum):
    PAD_CONSTANT = 0
    PAD_REFLECT = 1
    PAD_SYMMETRIC = 2
    PAD_EDGE = 3

PAD_CONSTANT: PadType
PAD_REFLECT: PadType
PAD_SYMMETRIC: PadType
PAD_EDGE: PadType

class SelectType(Enum):
    GREATER_THAN = 0
    GREATER_EQUAL = 1

GREATER_THAN: SelectType
GREATER_EQUAL: SelectType

class ReduceMethod(Enum):
    REDUCE_MEAN = 0
    REDUCE_SUM = 1
    REDUCE_MAX = 2
    REDUCE_MIN = 3
    REDUCE_PROD = 4

REDUCE_MEAN: ReduceMethod
REDUCE_SUM: ReduceMethod
REDUCE_MAX: ReduceMethod
REDUCE_MIN: ReduceMethod
REDUCE_PROD: ReduceMethod

class InterpolateMode(Enum):
    NEAREST = 0
    BILINEAR = 1

NEAREST: InterpolateMode
BILINEAR: InterpolateMode

class ConvParam:
    dh: int
    dw: int
    pad_h_t: int
    pad_h_b: int
    pad_w_l: int
    pad_w_r: int
    stride_h: int
    stride_w: int
    groups: int
    scale: float
    mode: QCalMode
    left_zero_point: int
    right_zero_point: int
    output_zero_point: int
    def __init__(self, *, dh: int = ..., dw: int = ..., pad_h_t: int = ..., pad_h_b: int = ..., pad_w_l: int = ..., pad_w_r: int = ..., stride_h: int = ..., stride_w: int = ..., groups: int = ..., scale: float = ..., mode: QCalMode = ..., left_zero_point: int = ..., right_zero_point: int = ..., output_zero_point: int = ...) -> None: ...

class Conv3dParam:
    left_zero_point: int
    mode: QCalMode
    output_zero_point: int
    pad: List[int]
    right_zero_point: int
    scale: float
    stride: List[int]
    groups: int
    dilation: List[int]
    def __init__(self, *, left_zero_point: int = ..., mode: QCalMode = ..., output_zero_point: int = ..., pad: List[int] = ..., right_zero_point: int = ..., scale: float = ..., stride: List[int] = ..., groups: int = ..., dilation: List[int] = ...) -> None: ...

class MatrixMulParam:
    scale: float
    mode: QCalMode
    left_zero_point: int
    right_zero_point: int
    output_zero_point: int
    def __init__(self, *, scale: float = ..., mode: QCalMode = ..., left_zero_point: int = ..., right_zero_point: int = ..., output_zero_point: int = ...) -> None: ...

class FCIntParam:
    weight_trans: bool
    is_izp_const: bool
    izp_val: int
    izp_vec: List[int]
    is_kzp_const: bool
    kzp_val: int
    kzp_vec: List[int]
    def __init__(self, *, weight_trans: bool = ..., is_izp_const: bool = ..., izp_val: int = ..., izp_vec: List[int] = ..., is_kzp_const: bool = ..., kzp_val: int = ..., kzp_vec: List[int] = ...) -> None: ...

class PoolParam:
    stride_h: int
    stride_w: int
    pad_h: int
    pad_w: int
    pad_h_offset: int
    pad_w_offset: int
    kernel_h: int
    kernel_w: int
    pooling_type: PoolType
    is_global_pooling: bool
    is_ceil_mode: bool
    is_ave_count_zero_pad: bool
    def __init__(self, *, stride_h: int = ..., stride_w: int = ..., pad_h: int = ..., pad_w: int = ..., pad_h_offset: int = ..., pad_w_offset: int = ..., kernel_h: int = ..., kernel_w: int = ..., pooling_type: PoolType = ..., is_global_pooling: bool = ..., is_ceil_mode: bool = ..., is_ave_count_zero_pad: bool = ...) -> None: ...

class PoolIntParam:
    stride_h: int
    stride_w: int
    pad_h_t: int
    pad_h_b: int
    pad_w_l: int
    pad_w_r: int
    kernel_h: int
    kernel_w: int
    is_avg_pooling: bool
    out_ceil_mode: int
    quant_mode: int
    scale: int
    rshift: int
    def __init__(self, *, stride_h: int = ..., stride_w: int = ..., pad_h_t: int = ..., pad_h_b: int = ..., pad_w_l: int = ..., pad_w_r: int = ..., kernel_h: int = ..., kernel_w: int = ..., is_avg_pooling: bool = ..., out_ceil_mode: int = ..., quant_mode: int = ..., scale: int = ..., rshift: int = ...) -> None: ...

class ReduceParam:
    method: ReduceMethod
    axis_list: List[int]
    keep_dims: bool
    def __init__(self, *, method: ReduceMethod = ..., axis_list: List[int] = ..., keep_dims: bool = ...) -> None: ...

class ArgParam:
    axis: int
    method: int
    def __init__(self, *, axis: int = ..., method: int = ...) -> None: ...

class TopkParam:
    k: int
    axis: int
    descending: bool
    def __init__(self, *, k: int = ..., axis: int = ..., descending: bool = ...) -> None: ...

class InterpolateParam:
    method: InterpolateMode
    align_corners: bool
    half_pixel_centers: bool
    def __init__(self, *, method: InterpolateMode = ..., align_corners: bool = ..., half_pixel_centers: bool = ...) -> None: ...

class RequantInt32Param:
    is_mul_shift_pc: bool
    multiplier_val: int
    shift_val: int
    multiplier_vec: List[int]
    shift_vec: List[int]
    is_offset_pc: bool
    offset_val: int
    offset_vec: List[int]
    def __init__(self, *, is_mul_shift_pc: bool = ..., multiplier_val: int = ..., shift_val: int = ..., multiplier_vec: List[int] = ..., shift_vec: List[int] = ..., is_offset_pc: bool = ..., offset_val: int = ..., offset_vec: List[int] = ...) -> None: ...

class RequantFp32Param:
    is_scale_pc: bool
    scale_val: float
    scale_vec: List[float]
    is_offset_pc: bool
    offset_val: int
    offset_vec: List[int]
    offset_fp_val: float
    offset_fp_vec: List[float]
    mode: int
    def __init__(self, *, is_scale_pc: bool = ..., scale_val: float = ..., scale_vec: List[float] = ..., is_offset_pc: bool = ..., offset_val: int = ..., offset_vec: List[int] = ..., offset_fp_val: float = ..., offset_fp_vec: List[float] = ..., mode: int = ...) -> None: ...

class NormParam:
    epsilon: float
    def __init__(self, *, epsilon: float = ...) -> None: ...

DequantInt32Param = RequantFp32Param

class Var:
    @property
    def id(self) -> int: ...
    @property
    def valid(self) -> bool: ...

NONE: Var

class Graph:
    def __init__(self, function: str = "main") -> None: ...
    @property
    def error(self) -> Optional[str]: ...
    def compile(self, profiles: Optional[Sequence[str]] = None, extensions: Optional[Sequence[str]] = None, level: str = "8k") -> None: ...
    def module(self) -> Module: ...
    def save(self, path: Union[str, PathLike[str]]) -> None: ...
    def run(self, inputs: Dict[str, np.ndarray], backend: str = "ref", threads: int = 0) -> Dict[str, np.ndarray]: ...
    def input(self, name: str, dtype: DTypeLike, shape: Sequence[int]) -> Var: ...
    def coeff(self, data: np.ndarray, name: str = ...) -> Var: ...
    def output(self, var: Var, name: str) -> None: ...
    def dtype(self, var: Var) -> str: ...
    def shape(self, var: Var) -> List[int]: ...
    def conv(self, input: Var, weight: Var, bias: Var, param: ConvParam, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def deconv(self, input: Var, weight: Var, bias: Var, param: ConvParam, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def conv3d(self, input: Var, weight: Var, bias: Var, param: Conv3dParam, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def matrix_mul(self, left: Var, right: Var, bias: Var, param: MatrixMulParam, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def fc_int(self, input: Var, kernel: Var, bias: Var, param: FCIntParam) -> Var: ...
    def pool(self, input: Var, param: PoolParam) -> Var: ...
    def pool_int(self, input: Var, param: PoolIntParam, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def batch_norm(self, input: Var, mean: Var, variance: Var, gamma: Var, beta: Var, param: NormParam) -> Var: ...
    def softmax(self, input: Var, axis: int) -> Var: ...
    def add(self, a: Var, b: Var, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def sub(self, a: Var, b: Var, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def mul(self, a: Var, b: Var, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def div(self, a: Var, b: Var) -> Var: ...
    def max(self, a: Var, b: Var) -> Var: ...
    def min(self, a: Var, b: Var) -> Var: ...
    def adds(self, a: Var, scalar: float, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def subs(self, a: Var, scalar: float, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def rsubs(self, scalar: float, a: Var, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def muls(self, a: Var, scalar: float, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def divs(self, a: Var, scalar: float) -> Var: ...
    def rdivs(self, scalar: float, a: Var) -> Var: ...
    def maxs(self, a: Var, scalar: float) -> Var: ...
    def mins(self, a: Var, scalar: float) -> Var: ...
    def add_shift(self, a: Var, b: Var, shift: int, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def sub_shift(self, a: Var, b: Var, shift: int, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def mul_shift(self, a: Var, b: Var, shift: int, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def adds_shift(self, a: Var, scalar: int, shift: int, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def subs_shift(self, a: Var, scalar: int, shift: int, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def rsubs_shift(self, scalar: int, a: Var, shift: int, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def muls_shift(self, a: Var, scalar: int, shift: int, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def arith_lshift(self, x: Var, num: Var) -> Var: ...
    def arith_rshift(self, x: Var, num: Var) -> Var: ...
    def arith_lshifts(self, x: Var, num: int) -> Var: ...
    def arith_rshifts(self, x: Var, num: int) -> Var: ...
    def round_rshift(self, x: Var, num: Var, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def round_rshifts(self, x: Var, num: int, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def clamp(self, x: Var, min: float, max: float) -> Var: ...
    def cast(self, x: Var, out_dtype: DTypeLike) -> Var: ...
    def active(self, x: Var, type: ActiveType, out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def active_param(self, x: Var, type: ActiveType, params: Sequence[float], out_dtype: Optional[DTypeLike] = None) -> Var: ...
    def gt(self, a: Var, b: Var) -> Var: ...
    def ge(self, a: Var, b: Var) -> Var: ...
    def lt(self, a: Var, b: Var) -> Var: ...
    def le(self, a: Var, b: Var) -> Var: ...
    def eq(self, a: Var, b: Var) -> Var: ...
    def ne(self, a: Var, b: Var) -> Var: ...
    def lut(self, x: Var, table: Var) -> Var: ...
    def condition_select(self, cond: Var, sel0: Var, sel1: Var) -> Var: ...
    def select(self, a: Var, b: Var, c: Var, d: Var, type: SelectType) -> Var: ...
    def where(self, x: Var) -> Var: ...
    def index_select(self, x: Var, dim: int, index: Var) -> Var: ...
    def permute(self, x: Var, order: Sequence[int]) -> Var: ...
    def tile(self, x: Var, reps: Sequence[int]) -> Var: ...
    def broadcast(self, x: Var, times: Sequence[int]) -> Var: ...
    def concat(self, xs: Sequence[Var], axis: int) -> Var: ...
    def split(self, x: Var, axis: int, num: int, size: Sequence[int] = ...) -> List[Var]: ...
    def pad(self, x: Var, pad_val: float, paddings: Sequence[int], mode: PadType = ...) -> Var: ...
    def reshape(self, x: Var, shape: Sequence[int]) -> Var: ...
    def squeeze(self, x: Var, axis: Sequence[int] = ...) -> Var: ...
    def expand_dims(self, x: Var, axis: int, ndims: int = 1) -> Var: ...
    def reduce(self, x: Var, param: ReduceParam) -> Var: ...
    def arg(self, x: Var, param: ArgParam) -> Var: ...
    def topk(self, x: Var, param: TopkParam) -> List[Var]: ...
    def sort(self, x: Var, dim: int = -1, stable: bool = False, descending: bool = False) -> List[Var]: ...
    def upsample(self, x: Var, scale: int) -> Var: ...
    def interpolate(self, x: Var, size: Sequence[int], scale_factor: Sequence[float], param: InterpolateParam) -> Var: ...
    def requant_int32(self, x: Var, param: RequantInt32Param, mode: int, out_dtype: DTypeLike) -> Var: ...
    def requant_fp32_to_int(self, x: Var, param: RequantFp32Param, out_dtype: DTypeLike) -> Var: ...
    def dequant_int_to_fp32(self, x: Var, param: DequantInt32Param) -> Var: ...

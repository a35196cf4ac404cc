// tosakit.lang: the BMLang-style operator API of include/tosakit/lang.h, one to one (TpuLang's role).
// dtypes are given as tosakit names ("i8", "u8", "fp32") or numpy dtypes (np.int8, "float32"); parameter
// structs take keyword arguments (lang.ConvParam(scale=0.5, pad_h_t=1)).
#include <pybind11/stl.h>

#include "bindings.h"

#if defined(HAVE_TOSAKIT_LANG)
#include "tosakit/lang.h"

namespace pybind11::detail {

// DType <-> Python: a tosakit dtype name, else anything numpy.dtype() accepts; returned as the tosakit name.
template <>
struct type_caster<tosakit::DType> {
  PYBIND11_TYPE_CASTER(tosakit::DType, const_name("str"));

  bool load(handle src, bool) {
    if (isinstance<str>(src))
      if (auto d = tosakit::parseDType(src.cast<std::string>())) {
        value = *d;
        return true;
      }
    object npdtype;
    try {
      npdtype = module_::import("numpy").attr("dtype")(src);
    } catch (const error_already_set&) {
      tosakit::py_bind::raise(
          tosakit::Status::invalid("unknown dtype '" + std::string(str(src)) +
                                   "' (expected i8, u8, i16, u16, i32, fp32, ... or a numpy dtype)"));
    }
    auto t = tosakit::py_bind::tensorFromArray(module_::import("numpy").attr("zeros")(0, npdtype), "dtype");
    value = t.dtype();
    return true;
  }

  static handle cast(tosakit::DType d, return_value_policy, handle) {
    return str(std::string(tosakit::dtypeName(d))).release();
  }
};

}  // namespace pybind11::detail

namespace tosakit::py_bind {

namespace {

using namespace tosakit::lang;

// Default construction plus keyword arguments naming fields: ConvParam(scale=0.5, pad_h_t=1).
template <typename T>
py::class_<T> paramClass(py::module_& m, const char* name) {
  py::class_<T> c(m, name);
  c.def(py::init([name](py::kwargs kw) {
    py::object o = py::cast(T());
    for (auto [k, v] : kw) {
      if (!py::hasattr(o, k))
        throw py::type_error(std::string(name) + " has no field '" + std::string(py::str(k)) + "'");
      py::setattr(o, k, v);
    }
    return o.cast<T>();
  }));
  return c;
}

void bindEnums(py::module_& m) {
  py::enum_<QCalMode>(m, "QCalMode")
      .value("LowPrecisionSymmetric", QCalMode::LowPrecisionSymmetric)
      .value("HighPrecisionSymmetric", QCalMode::HighPrecisionSymmetric)
      .value("HighPrecisionAsymmetric", QCalMode::HighPrecisionAsymmetric)
      .export_values();
  py::enum_<PoolType>(m, "PoolType").value("MAX", PoolType::MAX).value("AVE", PoolType::AVE).export_values();
  py::enum_<ActiveType> active(m, "ActiveType");
  for (auto [n, v] :
       std::initializer_list<std::pair<const char*, ActiveType>>{{"ACTIVE_TANH", ActiveType::ACTIVE_TANH},
                                                                 {"ACTIVE_SIGMOID", ActiveType::ACTIVE_SIGMOID},
                                                                 {"ACTIVE_RELU", ActiveType::ACTIVE_RELU},
                                                                 {"ACTIVE_EXP", ActiveType::ACTIVE_EXP},
                                                                 {"ACTIVE_ELU", ActiveType::ACTIVE_ELU},
                                                                 {"ACTIVE_SQRT", ActiveType::ACTIVE_SQRT},
                                                                 {"ACTIVE_SQUARE", ActiveType::ACTIVE_SQUARE},
                                                                 {"ACTIVE_RSQRT", ActiveType::ACTIVE_RSQRT},
                                                                 {"ACTIVE_ABSVAL", ActiveType::ACTIVE_ABSVAL},
                                                                 {"ACTIVE_LN", ActiveType::ACTIVE_LN},
                                                                 {"ACTIVE_ROUND", ActiveType::ACTIVE_ROUND},
                                                                 {"ACTIVE_CEIL", ActiveType::ACTIVE_CEIL},
                                                                 {"ACTIVE_FLOOR", ActiveType::ACTIVE_FLOOR},
                                                                 {"ACTIVE_SIN", ActiveType::ACTIVE_SIN},
                                                                 {"ACTIVE_COS", ActiveType::ACTIVE_COS},
                                                                 {"ACTIVE_LEAKY_RELU", ActiveType::ACTIVE_LEAKY_RELU}})
    active.value(n, v);
  active.export_values();
  py::enum_<PadType>(m, "PadType")
      .value("PAD_CONSTANT", PadType::PAD_CONSTANT)
      .value("PAD_REFLECT", PadType::PAD_REFLECT)
      .value("PAD_SYMMETRIC", PadType::PAD_SYMMETRIC)
      .value("PAD_EDGE", PadType::PAD_EDGE)
      .export_values();
  py::enum_<SelectType>(m, "SelectType")
      .value("GREATER_THAN", SelectType::GREATER_THAN)
      .value("GREATER_EQUAL", SelectType::GREATER_EQUAL)
      .export_values();
  py::enum_<ReduceMethod>(m, "ReduceMethod")
      .value("REDUCE_MEAN", ReduceMethod::REDUCE_MEAN)
      .value("REDUCE_SUM", ReduceMethod::REDUCE_SUM)
      .value("REDUCE_MAX", ReduceMethod::REDUCE_MAX)
      .value("REDUCE_MIN", ReduceMethod::REDUCE_MIN)
      .value("REDUCE_PROD", ReduceMethod::REDUCE_PROD)
      .export_values();
  py::enum_<InterpolateMode>(m, "InterpolateMode")
      .value("NEAREST", InterpolateMode::NEAREST)
      .value("BILINEAR", InterpolateMode::BILINEAR)
      .export_values();
}

void bindParams(py::module_& m) {
  paramClass<ConvParam>(m, "ConvParam")
      .def_readwrite("dh", &ConvParam::dh)
      .def_readwrite("dw", &ConvParam::dw)
      .def_readwrite("pad_h_t", &ConvParam::pad_h_t)
      .def_readwrite("pad_h_b", &ConvParam::pad_h_b)
      .def_readwrite("pad_w_l", &ConvParam::pad_w_l)
      .def_readwrite("pad_w_r", &ConvParam::pad_w_r)
      .def_readwrite("stride_h", &ConvParam::stride_h)
      .def_readwrite("stride_w", &ConvParam::stride_w)
      .def_readwrite("groups", &ConvParam::groups)
      .def_readwrite("scale", &ConvParam::scale)
      .def_readwrite("mode", &ConvParam::mode)
      .def_readwrite("left_zero_point", &ConvParam::left_zero_point)
      .def_readwrite("right_zero_point", &ConvParam::right_zero_point)
      .def_readwrite("output_zero_point", &ConvParam::output_zero_point);
  paramClass<Conv3dParam>(m, "Conv3dParam")
      .def_readwrite("groups", &Conv3dParam::groups)
      .def_readwrite("dilation", &Conv3dParam::dilation)
      .def_readwrite("pad", &Conv3dParam::pad)
      .def_readwrite("stride", &Conv3dParam::stride)
      .def_readwrite("scale", &Conv3dParam::scale)
      .def_readwrite("mode", &Conv3dParam::mode)
      .def_readwrite("left_zero_point", &Conv3dParam::left_zero_point)
      .def_readwrite("right_zero_point", &Conv3dParam::right_zero_point)
      .def_readwrite("output_zero_point", &Conv3dParam::output_zero_point);
  paramClass<MatrixMulParam>(m, "MatrixMulParam")
      .def_readwrite("scale", &MatrixMulParam::scale)
      .def_readwrite("mode", &MatrixMulParam::mode)
      .def_readwrite("left_zero_point", &MatrixMulParam::left_zero_point)
      .def_readwrite("right_zero_point", &MatrixMulParam::right_zero_point)
      .def_readwrite("output_zero_point", &MatrixMulParam::output_zero_point);
  paramClass<FCIntParam>(m, "FCIntParam")
      .def_readwrite("weight_trans", &FCIntParam::weight_trans)
      .def_readwrite("is_izp_const", &FCIntParam::is_izp_const)
      .def_readwrite("izp_val", &FCIntParam::izp_val)
      .def_readwrite("izp_vec", &FCIntParam::izp_vec)
      .def_readwrite("is_kzp_const", &FCIntParam::is_kzp_const)
      .def_readwrite("kzp_val", &FCIntParam::kzp_val)
      .def_readwrite("kzp_vec", &FCIntParam::kzp_vec);
  paramClass<PoolParam>(m, "PoolParam")
      .def_readwrite("stride_h", &PoolParam::stride_h)
      .def_readwrite("stride_w", &PoolParam::stride_w)
      .def_readwrite("pad_h", &PoolParam::pad_h)
      .def_readwrite("pad_w", &PoolParam::pad_w)
      .def_readwrite("pad_h_offset", &PoolParam::pad_h_offset)
      .def_readwrite("pad_w_offset", &PoolParam::pad_w_offset)
      .def_readwrite("kernel_h", &PoolParam::kernel_h)
      .def_readwrite("kernel_w", &PoolParam::kernel_w)
      .def_readwrite("pooling_type", &PoolParam::pooling_type)
      .def_readwrite("is_global_pooling", &PoolParam::is_global_pooling)
      .def_readwrite("is_ceil_mode", &PoolParam::is_ceil_mode)
      .def_readwrite("is_ave_count_zero_pad", &PoolParam::is_ave_count_zero_pad);
  paramClass<PoolIntParam>(m, "PoolIntParam")
      .def_readwrite("stride_h", &PoolIntParam::stride_h)
      .def_readwrite("stride_w", &PoolIntParam::stride_w)
      .def_readwrite("pad_h_t", &PoolIntParam::pad_h_t)
      .def_readwrite("pad_h_b", &PoolIntParam::pad_h_b)
      .def_readwrite("pad_w_l", &PoolIntParam::pad_w_l)
      .def_readwrite("pad_w_r", &PoolIntParam::pad_w_r)
      .def_readwrite("kernel_h", &PoolIntParam::kernel_h)
      .def_readwrite("kernel_w", &PoolIntParam::kernel_w)
      .def_readwrite("is_avg_pooling", &PoolIntParam::is_avg_pooling)
      .def_readwrite("out_ceil_mode", &PoolIntParam::out_ceil_mode)
      .def_readwrite("quant_mode", &PoolIntParam::quant_mode)
      .def_readwrite("scale", &PoolIntParam::scale)
      .def_readwrite("rshift", &PoolIntParam::rshift);
  paramClass<ReduceParam>(m, "ReduceParam")
      .def_readwrite("method", &ReduceParam::method)
      .def_readwrite("axis_list", &ReduceParam::axis_list)
      .def_readwrite("keep_dims", &ReduceParam::keep_dims);
  paramClass<ArgParam>(m, "ArgParam").def_readwrite("axis", &ArgParam::axis).def_readwrite("method", &ArgParam::method);
  paramClass<TopkParam>(m, "TopkParam")
      .def_readwrite("k", &TopkParam::k)
      .def_readwrite("axis", &TopkParam::axis)
      .def_readwrite("descending", &TopkParam::descending);
  paramClass<InterpolateParam>(m, "InterpolateParam")
      .def_readwrite("method", &InterpolateParam::method)
      .def_readwrite("align_corners", &InterpolateParam::align_corners)
      .def_readwrite("half_pixel_centers", &InterpolateParam::half_pixel_centers);
  paramClass<RequantInt32Param>(m, "RequantInt32Param")
      .def_readwrite("is_mul_shift_pc", &RequantInt32Param::is_mul_shift_pc)
      .def_readwrite("multiplier_val", &RequantInt32Param::multiplier_val)
      .def_readwrite("shift_val", &RequantInt32Param::shift_val)
      .def_readwrite("multiplier_vec", &RequantInt32Param::multiplier_vec)
      .def_readwrite("shift_vec", &RequantInt32Param::shift_vec)
      .def_readwrite("is_offset_pc", &RequantInt32Param::is_offset_pc)
      .def_readwrite("offset_val", &RequantInt32Param::offset_val)
      .def_readwrite("offset_vec", &RequantInt32Param::offset_vec);
  paramClass<RequantFp32Param>(m, "RequantFp32Param")
      .def_readwrite("is_scale_pc", &RequantFp32Param::is_scale_pc)
      .def_readwrite("scale_val", &RequantFp32Param::scale_val)
      .def_readwrite("scale_vec", &RequantFp32Param::scale_vec)
      .def_readwrite("is_offset_pc", &RequantFp32Param::is_offset_pc)
      .def_readwrite("offset_val", &RequantFp32Param::offset_val)
      .def_readwrite("offset_vec", &RequantFp32Param::offset_vec)
      .def_readwrite("offset_fp_val", &RequantFp32Param::offset_fp_val)
      .def_readwrite("offset_fp_vec", &RequantFp32Param::offset_fp_vec)
      .def_readwrite("mode", &RequantFp32Param::mode);
  m.attr("DequantInt32Param") = m.attr("RequantFp32Param");
  paramClass<NormParam>(m, "NormParam").def_readwrite("epsilon", &NormParam::epsilon);
}

ir::TargetEnv targetArgument(std::optional<std::vector<std::string>> profiles,
                             std::optional<std::vector<std::string>> extensions, const std::string& level) {
  ir::TargetEnv t = ir::TargetEnv::all();
  if (profiles) t.profiles = *profiles;
  if (extensions) t.extensions = *extensions;
  t.level = level;
  return t;
}

py::object graphError(const Graph& g) {
  Status s = g.status();
  if (s) return py::none();
  return py::str(s.toString());
}

void bindGraph(py::module_& m) {
  const auto none = py::none();
  py::class_<Var>(m, "Var", "A tensor of the graph being built (BMLang's Tensor).")
      .def_readonly("id", &Var::id)
      .def_property_readonly("valid", &Var::valid)
      .def("__repr__", [](const Var& v) { return "<lang.Var " + std::to_string(v.id) + ">"; });
  m.attr("NONE") = Var{};  // an absent optional operand (no bias)

  py::class_<Graph> g(m, "Graph", "Builds one function op by op (BMLang's operator API).");
  g.def(py::init<std::string>(), py::arg("function") = "main")
      .def("input", &Graph::input, py::arg("name"), py::arg("dtype"), py::arg("shape"))
      .def(
          "coeff",
          [](Graph& self, py::handle data, const std::string& name) {
            return self.coeff(tensorFromArray(data, "coeff" + (name.empty() ? "" : " '" + name + "'")), name);
          },
          py::arg("data"), py::arg("name") = "")
      .def("output", &Graph::output, py::arg("var"), py::arg("name"))
      .def("dtype", &Graph::dtype, py::arg("var"))
      .def("shape", &Graph::shape, py::arg("var"))
      .def_property_readonly("error", &graphError, "The first operator error as one line, or None.")
      .def(
          "compile",
          [](Graph& self, std::optional<std::vector<std::string>> profiles,
             std::optional<std::vector<std::string>> extensions, const std::string& level) {
            check(self.compile(targetArgument(std::move(profiles), std::move(extensions), level)));
          },
          py::arg("profiles") = none, py::arg("extensions") = none, py::arg("level") = "8k")
      .def("module",
           [](const Graph& self) {
             check(self.status());
             return ModuleHandle{std::shared_ptr<ir::Module>(self.module()), "<lang.Graph>"};
           })
      .def(
          "save", [](const Graph& self, py::handle path) { check(self.save(pathArgument(path))); }, py::arg("path"))
      .def(
          "run",
          [](const Graph& self, py::handle inputs, const std::string& backend, int threads) {
            SessionOptions so;
            so.backend = backend;
            if constexpr (requires { so.threads; }) so.threads = threads;
            NamedTensors in = tensorsFromDict(inputs, "inputs");
            auto out = [&] {
              py::gil_scoped_release release;
              return self.run(in, so);
            }();
            return dictFromTensors(take(std::move(out)));
          },
          py::arg("inputs"), py::arg("backend") = "ref", py::arg("threads") = 0);

  // NN / matrix
  g.def("conv", &Graph::conv, py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("param"),
        py::arg("out_dtype") = none)
      .def("deconv", &Graph::deconv, py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("param"),
           py::arg("out_dtype") = none)
      .def("conv3d", &Graph::conv3d, py::arg("input"), py::arg("weight"), py::arg("bias"), py::arg("param"),
           py::arg("out_dtype") = none)
      .def("matrix_mul", &Graph::matrix_mul, py::arg("left"), py::arg("right"), py::arg("bias"), py::arg("param"),
           py::arg("out_dtype") = none)
      .def("fc_int", &Graph::fc_int, py::arg("input"), py::arg("kernel"), py::arg("bias"), py::arg("param"))
      .def("pool", &Graph::pool, py::arg("input"), py::arg("param"))
      .def("pool_int", &Graph::pool_int, py::arg("input"), py::arg("param"), py::arg("out_dtype") = none)
      .def("batch_norm", &Graph::batch_norm, py::arg("input"), py::arg("mean"), py::arg("variance"), py::arg("gamma"),
           py::arg("beta"), py::arg("param"))
      .def("softmax", &Graph::softmax, py::arg("input"), py::arg("axis"));
  // Element-wise
  for (auto [name, fn] : {std::pair{"add", &Graph::add}, std::pair{"sub", &Graph::sub}, std::pair{"mul", &Graph::mul}})
    g.def(name, fn, py::arg("a"), py::arg("b"), py::arg("out_dtype") = none);
  for (auto [name, fn] : {std::pair{"div", &Graph::div}, std::pair{"max", &Graph::max}, std::pair{"min", &Graph::min},
                          std::pair{"gt", &Graph::gt}, std::pair{"ge", &Graph::ge}, std::pair{"lt", &Graph::lt},
                          std::pair{"le", &Graph::le}, std::pair{"eq", &Graph::eq}, std::pair{"ne", &Graph::ne}})
    g.def(name, fn, py::arg("a"), py::arg("b"));
  for (auto [name, fn] :
       {std::pair{"adds", &Graph::adds}, std::pair{"subs", &Graph::subs}, std::pair{"muls", &Graph::muls}})
    g.def(name, fn, py::arg("a"), py::arg("scalar"), py::arg("out_dtype") = none);
  g.def("rsubs", &Graph::rsubs, py::arg("scalar"), py::arg("a"), py::arg("out_dtype") = none);
  for (auto [name, fn] :
       {std::pair{"divs", &Graph::divs}, std::pair{"maxs", &Graph::maxs}, std::pair{"mins", &Graph::mins}})
    g.def(name, fn, py::arg("a"), py::arg("scalar"));
  g.def("rdivs", &Graph::rdivs, py::arg("scalar"), py::arg("a"));
  for (auto [name, fn] : {std::pair{"add_shift", &Graph::add_shift}, std::pair{"sub_shift", &Graph::sub_shift},
                          std::pair{"mul_shift", &Graph::mul_shift}})
    g.def(name, fn, py::arg("a"), py::arg("b"), py::arg("shift"), py::arg("out_dtype") = none);
  for (auto [name, fn] : {std::pair{"adds_shift", &Graph::adds_shift}, std::pair{"subs_shift", &Graph::subs_shift},
                          std::pair{"muls_shift", &Graph::muls_shift}})
    g.def(name, fn, py::arg("a"), py::arg("scalar"), py::arg("shift"), py::arg("out_dtype") = none);
  g.def("rsubs_shift", &Graph::rsubs_shift, py::arg("scalar"), py::arg("a"), py::arg("shift"),
        py::arg("out_dtype") = none)
      .def("arith_lshift", &Graph::arith_lshift, py::arg("x"), py::arg("num"))
      .def("arith_rshift", &Graph::arith_rshift, py::arg("x"), py::arg("num"))
      .def("arith_lshifts", &Graph::arith_lshifts, py::arg("x"), py::arg("num"))
      .def("arith_rshifts", &Graph::arith_rshifts, py::arg("x"), py::arg("num"))
      .def("round_rshift", &Graph::round_rshift, py::arg("x"), py::arg("num"), py::arg("out_dtype") = none)
      .def("round_rshifts", &Graph::round_rshifts, py::arg("x"), py::arg("num"), py::arg("out_dtype") = none)
      .def("clamp", &Graph::clamp, py::arg("x"), py::arg("min"), py::arg("max"))
      .def("cast", &Graph::cast, py::arg("x"), py::arg("out_dtype"))
      .def("active", &Graph::active, py::arg("x"), py::arg("type"), py::arg("out_dtype") = none)
      .def("active_param", &Graph::active_param, py::arg("x"), py::arg("type"), py::arg("params"),
           py::arg("out_dtype") = none)
      .def("lut", &Graph::lut, py::arg("x"), py::arg("table"));
  // Select
  g.def("condition_select", &Graph::condition_select, py::arg("cond"), py::arg("sel0"), py::arg("sel1"))
      .def("select", &Graph::select, py::arg("a"), py::arg("b"), py::arg("c"), py::arg("d"), py::arg("type"))
      .def("where", &Graph::where, py::arg("x"))
      .def("index_select", &Graph::index_select, py::arg("x"), py::arg("dim"), py::arg("index"));
  // Data arrangement
  g.def("permute", &Graph::permute, py::arg("x"), py::arg("order"))
      .def("tile", &Graph::tile, py::arg("x"), py::arg("reps"))
      .def("broadcast", &Graph::broadcast, py::arg("x"), py::arg("times"))
      .def("concat", &Graph::concat, py::arg("xs"), py::arg("axis"))
      .def("split", &Graph::split, py::arg("x"), py::arg("axis"), py::arg("num"), py::arg("size") = std::vector<int>{})
      .def("pad", &Graph::pad, py::arg("x"), py::arg("pad_val"), py::arg("paddings"),
           py::arg("mode") = PadType::PAD_CONSTANT)
      .def("reshape", &Graph::reshape, py::arg("x"), py::arg("shape"))
      .def("squeeze", &Graph::squeeze, py::arg("x"), py::arg("axis") = std::vector<int>{})
      .def("expand_dims", &Graph::expand_dims, py::arg("x"), py::arg("axis"), py::arg("ndims") = 1)
      .def("reduce", &Graph::reduce, py::arg("x"), py::arg("param"))
      .def("arg", &Graph::arg, py::arg("x"), py::arg("param"))
      .def("topk", &Graph::topk, py::arg("x"), py::arg("param"))
      .def("sort", &Graph::sort, py::arg("x"), py::arg("dim") = -1, py::arg("stable") = false,
           py::arg("descending") = false)
      .def("upsample", &Graph::upsample, py::arg("x"), py::arg("scale"))
      .def("interpolate", &Graph::interpolate, py::arg("x"), py::arg("size"), py::arg("scale_factor"),
           py::arg("param"));
  // Quantization
  g.def("requant_int32", &Graph::requant_int32, py::arg("x"), py::arg("param"), py::arg("mode"), py::arg("out_dtype"))
      .def("requant_fp32_to_int", &Graph::requant_fp32_to_int, py::arg("x"), py::arg("param"), py::arg("out_dtype"))
      .def("dequant_int_to_fp32", &Graph::dequant_int_to_fp32, py::arg("x"), py::arg("param"));
}

}  // namespace

void bindLang(py::module_& m) {
  py::module_ lang = m.def_submodule("lang", "BMLang-style operator API (include/tosakit/lang.h)");
  bindEnums(lang);
  bindParams(lang);
  bindGraph(lang);
}

}  // namespace tosakit::py_bind

#else

namespace tosakit::py_bind {
void bindLang(py::module_&) {}
}  // namespace tosakit::py_bind

#endif

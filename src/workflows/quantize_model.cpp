// quantizeModelFile and verifyQuantizedModel (include/tosakit/quantize_model.h), the same for every door.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "ir/module_clone.h"
#include "tosakit/inputs.h"
#include "tosakit/model_io.h"
#include "tosakit/npz.h"
#include "tosakit/quantize_model.h"

namespace tosakit {

namespace {

Result<NamedTensors> runModel(std::unique_ptr<ir::Module> m, const NamedTensors& inputs, const SessionOptions& options,
                              NamedTensors& layers) {
  auto session = Session::create(std::move(m), options);
  if (!session) return session.status();
  RunOptions ro;
  ro.captureIntermediates = true;
  RunResult rr;
  TK_RETURN_IF_ERROR((*session)->run(inputs, rr, ro));
  layers = std::move(rr.intermediates);
  return std::move(rr.outputs);
}

// Float inputs of a quantInput graph, quantized with the parameters it records for them.
void quantizeFloatInputs(NamedTensors& inputs, const ir::Function& quantFn,
                         const std::map<std::string, TensorQuantParams>& params) {
  for (auto& [name, t] : inputs) {
    auto it = params.find(name);
    if (it == params.end() || !isFloat(t.dtype())) continue;
    Tensor q(DType::I8, t.shape());
    for (size_t i = 0; i < quantFn.inputs().size(); ++i)
      if (quantFn.inputName(i) == name) q = Tensor(quantFn.inputs()[i]->type.dtype, t.shape());
    for (int64_t i = 0; i < t.size(); ++i) {
      double v = std::nearbyint(t.getFloat(i) / it->second.scale) + double(it->second.zeroPoint);
      q.setInt(i, int64_t(std::clamp(v, double(dtypeMin(q.dtype())), double(dtypeMax(q.dtype())))));
    }
    t = std::move(q);
  }
}

// INT8/INT16 anywhere (the mode or a layer of the quantize table) needs calibration thresholds.
bool needsCalibration(const QuantizeOptions& o) {
  bool needs = o.mode == QuantMode::INT8 || o.mode == QuantMode::INT16;
  for (const auto& [layer, m] : o.layerModes) needs = needs || m == QuantMode::INT8 || m == QuantMode::INT16;
  return needs;
}

Status readTables(const QuantizeModelOptions& o, const ir::Function& fn, QuantizeOptions& q, CalibrationTable& table) {
  if (!o.calibrationTable.empty()) {
    auto t = readCalibrationTable(o.calibrationTable);
    if (!t) return t.status();  // names the file
    TK_RETURN_IF_ERROR(checkCalibrationTableNames(*t, fn, o.calibrationTable));
    table = std::move(*t);
  }
  if (!o.quantizeTable.empty()) {
    auto layers = readQuantizeTable(o.quantizeTable);
    if (!layers) return layers.status();
    q.layerModes = std::move(*layers);
  }
  if (needsCalibration(q) && o.calibrationTable.empty())
    return Status::invalid(quantModeName(q.mode) + " needs a calibration table (tosakit calibrate)")
        .withParameter("calibration_table");
  q.calibrationTableSource = o.calibrationTable;
  q.quantizeTableSource = o.quantizeTable;
  return Status::ok();
}

}  // namespace

Result<QuantizeVerification> verifyQuantizedModel(const ir::Module& floatModel, const ir::Module& quantized,
                                                  const QuantizeTestOptions& o) {
  CompareOptions co;
  co.minCosine = o.minCosine;
  co.minEuclidean = o.minEuclidean;
  co.quantParams = recordedQuantParams(quantized);
  auto reference = npy::readNpz(o.testReference);
  if (!reference) return reference.status().withParameter("test_reference");
  const ir::Function* floatFn = floatModel.function("main");
  const ir::Function* quantFn = quantized.function("main");
  if (!floatFn || !quantFn) return Status::invalid("the models have no function 'main'");
  auto floatInputs = loadSample(o.testInput, *floatFn);
  if (!floatInputs) return floatInputs.status().withContext(o.testInput).withParameter("test_input");
  auto quantInputs = loadSample(o.testInput, *quantFn);
  if (!quantInputs) return quantInputs.status().withContext(o.testInput).withParameter("test_input");
  quantizeFloatInputs(*quantInputs, *quantFn, co.quantParams);
  NamedTensors quantLayers, floatLayers;
  auto quantOut = runModel(ir::cloneModule(quantized), *quantInputs, o.session, quantLayers);
  if (!quantOut) return quantOut.status().withContext("quantized model");
  auto floatOut = runModel(ir::cloneModule(floatModel), *floatInputs, o.session, floatLayers);
  if (!floatOut) return floatOut.status().withContext("float model");
  QuantizeVerification v;
  v.tested = true;
  v.outputs = compareTensors(*reference, *quantOut, co);
  if (v.outputs.rows.empty())
    return Status::invalid(o.testReference + ": names none of the model's outputs").withParameter("test_reference");
  v.layers = compareTensors(floatLayers, quantLayers, co);
  if (!v.outputs.allPass()) {
    std::ostringstream msg;
    msg << "quantized outputs differ from " << o.testReference << " beyond tolerance " << o.minCosine << ","
        << o.minEuclidean << "; nothing written";
    v.verdict = Status::error(StatusCode::SpecError, msg.str());
  }
  return v;
}

Result<QuantizedModel> quantizeModelFile(const std::string& model, const QuantizeModelOptions& o) {
  if (o.test.testInput.empty() != o.test.testReference.empty())
    return Status::invalid("test_input and test_reference go together")
        .withParameter(o.test.testInput.empty() ? "test_input" : "test_reference");
  auto floatModel = loadModel(model);
  if (!floatModel) return floatModel.status();
  const ir::Function* fn = (*floatModel)->function(o.quantize.function);
  if (!fn) return Status::invalid(model + ": no function '" + o.quantize.function + "'").withParameter("function");
  QuantizeOptions q = o.quantize;
  CalibrationTable table;
  TK_RETURN_IF_ERROR(readTables(o, *fn, q, table));
  auto quantized = quantizeModel(**floatModel, table, q);
  if (!quantized) return quantized.status();
  QuantizedModel out;
  out.module = std::move(*quantized);
  if (o.test.testInput.empty()) return out;
  auto v = verifyQuantizedModel(**floatModel, *out.module, o.test);
  if (!v) return v.status();
  out.verification = std::move(*v);
  if (!out.verification.verdict) out.verification.verdict = out.verification.verdict.withContext(model);
  return out;
}

}  // namespace tosakit

// tosakit visual: float vs quantized, tensor by tensor, on the float graph (TPU-MLIR's visual.py; docs/INSPECT.md).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

#include "inspect/inspect_internal.h"
#include "ir/module_clone.h"
#include "tosakit/compare.h"
#include "tosakit/inspect.h"
#include "tosakit/npz.h"
#include "tosakit/quantize.h"

namespace tosakit {

namespace {

Result<NamedTensors> runCapturing(const ir::Module& m, const NamedTensors& inputs, const VisualOptions& o,
                                  const std::string& which) {
  SessionOptions so;
  so.backend = o.backend;
  so.threads = o.threads;
  auto session = Session::create(ir::cloneModule(m), so);
  if (!session) return session.status().withContext(which);
  RunOptions ro;
  ro.function = o.function;
  ro.captureIntermediates = true;
  RunResult r;
  if (Status s = (*session)->run(inputs, r, ro); !s) return s.withContext(which);
  NamedTensors all = std::move(r.intermediates);
  for (auto& t : r.outputs) all.push_back(std::move(t));
  return all;
}

std::vector<double> valuesOf(const Tensor& t, const std::map<std::string, TensorQuantParams>& params,
                             const std::string& name) {
  auto it = params.find(name);
  if (it != params.end() && isInteger(t.dtype())) return dequantize(t, it->second).toDoubles();
  return t.toDoubles();
}

nlohmann::json histogram(const std::vector<double>& v, double lo, double hi, int bins) {
  std::vector<int64_t> counts(size_t(bins), 0);
  const double width = hi > lo ? (hi - lo) / bins : 1;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    const int b = std::clamp(int((x - lo) / width), 0, bins - 1);
    ++counts[size_t(b)];
  }
  return counts;
}

double rounded(double x) {
  if (!std::isfinite(x)) return x > 0 ? 1e300 : x < 0 ? -1e300 : 0;
  return std::stod(nlohmann::json(float(x)).dump());  // 7 significant digits keep the page small
}

// Plots of one tensor: float vs dequantized pairs (evenly strided), both histograms on a common range, the error.
nlohmann::json plots(const std::vector<double>& f, const std::vector<double>& q, const VisualOptions& o) {
  nlohmann::json j;
  const size_t n = std::min(f.size(), q.size());
  if (n == 0) return j;
  const size_t stride = std::max<size_t>(1, n / size_t(std::max(1, o.scatterPoints)));
  nlohmann::json pts = nlohmann::json::array();
  for (size_t i = 0; i < n; i += stride) pts.push_back({rounded(f[i]), rounded(q[i])});
  j["scatter"] = pts;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, elo = lo, ehi = -lo;
  std::vector<double> err(n);
  for (size_t i = 0; i < n; ++i) {
    for (double x : {f[i], q[i]})
      if (std::isfinite(x)) lo = std::min(lo, x), hi = std::max(hi, x);
    err[i] = q[i] - f[i];
    if (std::isfinite(err[i])) elo = std::min(elo, err[i]), ehi = std::max(ehi, err[i]);
  }
  if (!std::isfinite(lo)) lo = hi = elo = ehi = 0;
  j["range"] = {rounded(lo), rounded(hi)};
  j["hist_float"] = histogram(f, lo, hi, o.histogramBins);
  j["hist_quant"] = histogram(q, lo, hi, o.histogramBins);
  j["err_range"] = {rounded(elo), rounded(ehi)};
  j["hist_err"] = histogram(err, elo, ehi, o.histogramBins);
  return j;
}

// The detail record of one tensor: the first sample's figures and plots, the mean/worst cosine over samples.
nlohmann::json tensorRecord(const TensorComparison& row, const std::vector<CompareReport>& reports,
                            const NamedTensors& floatTs, const NamedTensors& quantTs,
                            const std::map<std::string, TensorQuantParams>& params, const VisualOptions& o) {
  nlohmann::json j = {{"name", row.name},
                      {"shape", row.shape},
                      {"cos", rounded(row.cosine)},
                      {"euc", rounded(row.euclidean)},
                      {"sqnr", rounded(row.sqnr)},
                      {"maxdiff", rounded(row.maxAbsDiff)},
                      {"note", row.note}};
  double sum = 0, worst = 1;
  int64_t count = 0;
  for (const auto& rep : reports)
    for (const auto& r : rep.rows)
      if (r.name == row.name && r.note.empty()) sum += r.cosine, worst = std::min(worst, r.cosine), ++count;
  j["cos_mean"] = rounded(count ? sum / double(count) : row.cosine);
  j["cos_min"] = rounded(count ? worst : row.cosine);
  j["samples"] = count;
  const Tensor* q = npy::findTensor(quantTs, row.name);
  const Tensor* f = npy::findTensor(floatTs, row.name);
  if (q) j["dtype"] = std::string(dtypeName(q->dtype()));
  if (auto it = params.find(row.name); it != params.end()) {
    j["scale"] = it->second.scale;
    j["zero_point"] = it->second.zeroPoint;
  }
  if (o.calibration)
    if (const CalibrationEntry* e = o.calibration->find(row.name))
      j["calibration"] = {{"threshold", e->threshold}, {"min", e->min}, {"max", e->max}};
  if (f && q && row.note.empty()) j["plots"] = plots(f->toDoubles(), valuesOf(*q, params, row.name), o);
  return j;
}

std::string page(const std::string& svg, const nlohmann::json& data);

}  // namespace

Result<std::string> visualReport(const ir::Module& floatModel, const ir::Module& quantModel,
                                 const std::vector<NamedTensors>& samples, const VisualOptions& options) {
  if (samples.empty()) return Status::invalid("visual: no input samples");
  const auto params = recordedQuantParams(quantModel, options.function);
  CompareOptions co;
  co.minCosine = options.minCosine;
  co.minEuclidean = options.minEuclidean;
  co.quantParams = params;
  std::vector<CompareReport> reports;
  NamedTensors firstFloat, firstQuant;
  for (size_t k = 0; k < samples.size(); ++k) {
    auto f = runCapturing(floatModel, samples[k], options, "float model");
    if (!f) return f.status();
    auto q = runCapturing(quantModel, samples[k], options, "quantized model");
    if (!q) return q.status();
    reports.push_back(compareTensors(*f, *q, co));
    if (k == 0) firstFloat = std::move(*f), firstQuant = std::move(*q);
  }
  if (reports.front().rows.empty()) return Status::invalid("visual: the two models have no tensor name in common");
  auto svg = inspect::layoutInlineSvg(floatModel, options.graph, "float model");
  if (!svg) return svg.status();
  nlohmann::json tensors = nlohmann::json::array();
  for (const auto& row : reports.front().rows)
    tensors.push_back(tensorRecord(row, reports, firstFloat, firstQuant, params, options));
  nlohmann::json data = {{"tensors", tensors},
                         {"min_cosine", options.minCosine},
                         {"min_euclidean", options.minEuclidean},
                         {"samples", samples.size()},
                         {"only_float", reports.front().onlyInA.size()},
                         {"only_quant", reports.front().onlyInB.size()}};
  return page(*svg, data);
}

namespace {

// The report's own script: colours, the slider, the detail panel and its plots, the worst-layers table.
const char* kVisualScript = R"JS(
var D=JSON.parse(document.getElementById('data').textContent),byName={};
D.tensors.forEach(function(t){byName[t.name]=t;});
var slider=document.getElementById('tol'),tolText=document.getElementById('tolv');
function colour(c,tol){if(c===undefined||c===null)return '#dddddd';if(c>=tol)return '#8fd19e';
if(c>=tol-(1-tol)*4)return '#ffd966';return '#f1948a';}
function nodeTensor(g){var id=g.id||'',k=id.indexOf(':');return k<0?null:byName[id.slice(k+1)];}
function recolour(){var tol=parseFloat(slider.value);tolText.textContent=tol.toFixed(3);
document.querySelectorAll('g.node').forEach(function(g){var t=nodeTensor(g),s=g.querySelector('polygon,ellipse,path');
if(!s||(!t&&g.id.indexOf('op:')!==0))return;s.setAttribute('fill',t?colour(D.samples>1?t.cos_min:t.cos,tol):'#dddddd');});
document.querySelectorAll('#worst tbody tr').forEach(function(tr){var t=byName[tr.dataset.name];
tr.style.background=colour(D.samples>1?t.cos_min:t.cos,tol);});}
slider.addEventListener('input',recolour);
function fmt(x,d){return x===undefined||x===null?'-':(Math.abs(x)>=1e299?'inf':Number(x).toPrecision(d||6));}
function esc(s){return String(s).replace(/[&<>"]/g,function(c){return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;'}[c];});}
function axes(w,h){return '<rect x="0" y="0" width="'+w+'" height="'+h+'" fill="#fff" stroke="#999"/>';}
function scatter(p){var w=260,h=200,pts=p.scatter,lo=p.range[0],hi=p.range[1],s=hi>lo?hi-lo:1,o=axes(w,h);
o+='<line x1="0" y1="'+h+'" x2="'+w+'" y2="0" stroke="#bbb"/>';
pts.forEach(function(q){o+='<circle r="1.6" fill="#0d6efd" cx="'+((q[0]-lo)/s*w).toFixed(1)+'" cy="'+(h-(q[1]-lo)/s*h).toFixed(1)+'"/>';});
return '<svg class="plot" id="scatter" width="'+w+'" height="'+h+'">'+o+'</svg>';}
function bars(id,series,colours){var w=260,h=120,n=series[0].length,m=1,o=axes(w,h);
series.forEach(function(c){c.forEach(function(v){m=Math.max(m,v);});});
series.forEach(function(c,k){c.forEach(function(v,i){var bh=v/m*h;o+='<rect fill="'+colours[k]+'" fill-opacity="0.6" x="'+
(i*w/n).toFixed(1)+'" y="'+(h-bh).toFixed(1)+'" width="'+(w/n).toFixed(1)+'" height="'+bh.toFixed(1)+'"/>';});});
return '<svg class="plot" id="'+id+'" width="'+w+'" height="'+h+'">'+o+'</svg>';}
function show(name){var t=byName[name],d=document.getElementById('detail');if(!t)return;
var rows=[['tensor',esc(t.name)],['shape',t.shape],['quantized dtype',t.dtype||'-'],['cosine',fmt(t.cos)],
['euclidean',fmt(t.euc)],['SQNR (dB)',fmt(t.sqnr,4)],['max |diff|',fmt(t.maxdiff)],['scale',fmt(t.scale)],
['zero point',t.zero_point===undefined?'-':t.zero_point]];
if(D.samples>1)rows.push(['cosine mean / worst ('+t.samples+' samples)',fmt(t.cos_mean)+' / '+fmt(t.cos_min)]);
if(t.calibration)rows.push(['calibration threshold / min / max',fmt(t.calibration.threshold)+' / '+
fmt(t.calibration.min)+' / '+fmt(t.calibration.max)]);
if(t.note)rows.push(['note',esc(t.note)]);
var h='<h3>'+esc(t.name)+'</h3><table>'+rows.map(function(r){return '<tr><th>'+r[0]+'</th><td>'+r[1]+'</td></tr>';}).join('')+'</table>';
if(t.plots&&t.plots.scatter){h+='<p>float (x) vs dequantized (y), range '+fmt(t.plots.range[0],4)+' .. '+fmt(t.plots.range[1],4)+'</p>'+scatter(t.plots);
h+='<p>histograms: <span style="color:#0d6efd">float</span>, <span style="color:#dc3545">quantized</span></p>'+
bars('hist',[t.plots.hist_float,t.plots.hist_quant],['#0d6efd','#dc3545']);
h+='<p>error (quantized - float), '+fmt(t.plots.err_range[0],4)+' .. '+fmt(t.plots.err_range[1],4)+'</p>'+
bars('errhist',[t.plots.hist_err],['#6c757d']);}
d.innerHTML=h;d.style.display='block';d.dataset.name=t.name;
document.querySelectorAll('g.node.sel').forEach(function(g){g.classList.remove('sel');});
var g=document.getElementById('op:'+name)||document.getElementById('out:'+name);if(g){g.classList.add('sel');}return g;}
document.querySelectorAll('g.node').forEach(function(g){var t=nodeTensor(g);if(!t)return;
g.style.cursor='pointer';g.addEventListener('click',function(e){e.stopPropagation();show(t.name);});});
var tbody=document.querySelector('#worst tbody'),sortKey='cos',sortAsc=true;
function fill(){var list=D.tensors.slice().sort(function(a,b){var x=a[sortKey],y=b[sortKey];
if(typeof x==='string')return sortAsc?x.localeCompare(y):y.localeCompare(x);return sortAsc?x-y:y-x;});
tbody.innerHTML=list.map(function(t){return '<tr data-name="'+esc(t.name)+'"><td>'+esc(t.name)+'</td><td>'+fmt(t.cos)+
'</td><td>'+fmt(t.euc)+'</td><td>'+fmt(t.sqnr,4)+'</td><td>'+fmt(t.maxdiff)+'</td><td>'+fmt(t.cos_min)+'</td></tr>';}).join('');
tbody.querySelectorAll('tr').forEach(function(tr){tr.addEventListener('click',function(){var g=show(tr.dataset.name);
if(g)tkView.focus(g);});});recolour();}
document.querySelectorAll('#worst th').forEach(function(th){th.addEventListener('click',function(){
if(sortKey===th.dataset.key)sortAsc=!sortAsc;else{sortKey=th.dataset.key;sortAsc=true;}fill();});});
fill();
)JS";

std::string page(const std::string& svg, const nlohmann::json& data) {
  // "</" inside the JSON would end the script element early.
  std::string json = data.dump();
  for (size_t p = 0; (p = json.find("</", p)) != std::string::npos; p += 3) json.replace(p, 2, "<\\/");
  const int64_t samples = data["samples"].get<int64_t>();
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tosakit visual</title>\n<style>\n" +
      inspect::graphViewStyle() +
      R"(#view{right:430px}
#side{position:absolute;top:43px;right:0;width:430px;bottom:0;overflow:auto;border-left:1px solid #ccc;font-size:12px}
#side table{border-collapse:collapse;width:100%}#side td,#side th{border-bottom:1px solid #eee;padding:2px 4px;text-align:left}
#worst th{cursor:pointer;background:#f1f3f5}#worst tbody tr{cursor:pointer}
#detail{display:none;padding:4px;border-bottom:2px solid #999}.plot{display:block;margin:4px 0}
.sel polygon,.sel ellipse,.sel path{stroke:#0d6efd!important;stroke-width:5px!important}
#legend span{display:inline-block;padding:0 6px;margin-right:4px}
</style></head><body>
<div id="bar"><b>tosakit visual</b> &nbsp; )" +
      inspect::graphSearchBox() +
      R"( &nbsp; cosine tolerance <input id="tol" type="range" min="0.8" max="1" step="0.001" value=")" +
      nlohmann::json(data["min_cosine"]).dump() + R"("> <span id="tolv"></span> <span id="legend">
<span style="background:#8fd19e">&ge; tolerance</span><span style="background:#ffd966">near</span><span style="background:#f1948a">below</span><span style="background:#ddd">not compared</span></span>)" +
      (samples > 1 ? " (worst of " + std::to_string(samples) + " samples)" : std::string()) +
      "</div>\n<div id=\"view\">" + svg + R"(</div>
<div id="side"><div id="detail"></div><h3 style="margin:4px">Worst layers</h3>
<table id="worst"><thead><tr><th data-key="name">tensor</th><th data-key="cos">cosine</th><th data-key="euc">euclid</th>
<th data-key="sqnr">SQNR</th><th data-key="maxdiff">max |diff|</th><th data-key="cos_min">worst cos</th></tr></thead>
<tbody></tbody></table></div>
<script type="application/json" id="data">)" +
      json + "</script>\n<script>\n" + inspect::graphViewScript() + kVisualScript + "</script></body></html>\n";
}

}  // namespace

}  // namespace tosakit

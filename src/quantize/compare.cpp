#include "tosakit/compare.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "compliance/similarity.h"

namespace tosakit {

namespace {

// Float view of a tensor: integer tensors with recorded parameters dequantized, others as they are.
Tensor floatView(const std::string& name, const Tensor& t, const CompareOptions& o, bool& dequantized) {
  if (isInteger(t.dtype())) {
    auto it = o.quantParams.find(name);
    if (it != o.quantParams.end()) {
      dequantized = true;
      return dequantize(t, it->second);
    }
  }
  return t;
}

TensorComparison compareOne(const std::string& name, const Tensor& a, const Tensor& b, const CompareOptions& o) {
  TensorComparison r;
  r.name = name;
  r.shape = shapeToString(a.shape());
  if (a.shape() != b.shape()) {
    r.note = "shape " + shapeToString(a.shape()) + " vs " + shapeToString(b.shape());
    return r;
  }
  bool dqA = false, dqB = false;
  Tensor fa = floatView(name, a, o, dqA), fb = floatView(name, b, o, dqB);
  r.dequantized = dqA || dqB;
  r.cosine = compliance::cosineSimilarity(fa, fb);
  r.euclidean = compliance::euclideanSimilarity(fa, fb);
  double signal = 0, noise = 0;
  for (int64_t i = 0; i < fa.size(); ++i) {
    double x = fa.getFloat(i), y = fb.getFloat(i);
    signal += x * x;
    noise += (x - y) * (x - y);
    r.maxAbsDiff = std::max(r.maxAbsDiff, std::fabs(x - y));
  }
  r.sqnr = noise == 0 ? std::numeric_limits<double>::infinity() : 10.0 * std::log10(signal / noise);
  r.pass = r.cosine >= o.minCosine && r.euclidean >= o.minEuclidean;
  return r;
}

std::string escapeHtml(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string fmt(double v, int digits = 6) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Inline SVG: x = tensor index, y = similarity in [min(0, lowest), 1]; the tolerance as dashed lines.
std::string similarityPlot(const CompareReport& r, const CompareOptions& o) {
  const double w = 900, h = 300, left = 50, right = 20, top = 20, bottom = 40;
  double lo = std::min(o.minEuclidean, o.minCosine) - 0.05;
  for (const auto& row : r.rows)
    if (row.note.empty()) lo = std::min({lo, row.cosine, row.euclidean});
  lo = std::max(lo, -1.0);
  size_t n = r.rows.size();
  auto x = [&](size_t i) { return left + (n <= 1 ? 0.5 : double(i) / double(n - 1)) * (w - left - right); };
  // Values below the axis (euclidean similarity can be very negative) are drawn on it.
  auto y = [&](double v) { return top + (1.0 - (std::max(v, lo) - lo) / (1.0 - lo)) * (h - top - bottom); };
  std::ostringstream s;
  s << "<svg id=\"similarity-plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << w << "\" height=\"" << h
    << "\" viewBox=\"0 0 " << w << " " << h << "\">\n";
  s << "<rect x=\"0\" y=\"0\" width=\"" << w << "\" height=\"" << h << "\" fill=\"#fff\"/>\n";
  s << "<line x1=\"" << left << "\" y1=\"" << y(1) << "\" x2=\"" << left << "\" y2=\"" << y(lo)
    << "\" stroke=\"#000\"/>\n";
  s << "<line x1=\"" << left << "\" y1=\"" << y(lo) << "\" x2=\"" << w - right << "\" y2=\"" << y(lo)
    << "\" stroke=\"#000\"/>\n";
  for (double t : {lo, (lo + 1) / 2, 1.0})
    s << "<text x=\"" << left - 5 << "\" y=\"" << y(t) + 4 << "\" font-size=\"11\" text-anchor=\"end\">" << fmt(t, 3)
      << "</text>\n";
  s << "<text x=\"" << (w / 2) << "\" y=\"" << h - 8
    << "\" font-size=\"12\" text-anchor=\"middle\">tensor (graph order)</text>\n";
  auto tolLine = [&](double v, const char* color) {
    s << "<line x1=\"" << left << "\" y1=\"" << y(v) << "\" x2=\"" << w - right << "\" y2=\"" << y(v) << "\" stroke=\""
      << color << "\" stroke-dasharray=\"4 3\"/>\n";
  };
  tolLine(o.minCosine, "#1f77b4");
  tolLine(o.minEuclidean, "#ff7f0e");
  auto series = [&](const char* id, const char* color, double TensorComparison::*field) {
    s << "<polyline class=\"series\" id=\"" << id << "\" fill=\"none\" stroke=\"" << color << "\" points=\"";
    for (size_t i = 0; i < n; ++i)
      if (r.rows[i].note.empty()) s << fmt(x(i), 1) << "," << fmt(y(r.rows[i].*field), 1) << " ";
    s << "\"/>\n";
    for (size_t i = 0; i < n; ++i)
      if (r.rows[i].note.empty())
        s << "<circle cx=\"" << fmt(x(i), 1) << "\" cy=\"" << fmt(y(r.rows[i].*field), 1) << "\" r=\"3\" fill=\""
          << color << "\"><title>" << escapeHtml(r.rows[i].name) << ": " << fmt(r.rows[i].*field)
          << "</title></circle>\n";
  };
  series("cosine", "#1f77b4", &TensorComparison::cosine);
  series("euclidean", "#ff7f0e", &TensorComparison::euclidean);
  s << "<text x=\"" << left << "\" y=\"" << h - 8 << "\" font-size=\"12\" fill=\"#1f77b4\">&#9644; cosine</text>\n";
  s << "<text x=\"" << left + 80 << "\" y=\"" << h - 8
    << "\" font-size=\"12\" fill=\"#ff7f0e\">&#9644; euclidean "
       "(dashed: tolerances)</text>\n";
  s << "</svg>\n";
  return s.str();
}

}  // namespace

bool CompareReport::allPass() const { return firstFailure() == nullptr; }

const TensorComparison* CompareReport::firstFailure() const {
  for (const auto& r : rows)
    if (!r.pass) return &r;
  return nullptr;
}

Status parseTolerance(const std::string& spec, double& minCosine, double& minEuclidean) {
  char extra = 0;
  if (std::sscanf(spec.c_str(), "%lf,%lf%c", &minCosine, &minEuclidean, &extra) != 2 || !std::isfinite(minCosine) ||
      !std::isfinite(minEuclidean))
    return Status::invalid("tolerance '" + spec + "': expected two numbers COSINE,EUCLIDEAN (e.g. 0.99,0.9)");
  return Status::ok();
}

CompareReport compareTensors(const NamedTensors& a, const NamedTensors& b, const CompareOptions& options) {
  CompareReport report;
  std::map<std::string, const Tensor*> inB;
  for (const auto& [name, t] : b) inB[name] = &t;
  std::set<std::string> seen;
  for (const auto& [name, t] : a) {
    if (options.excepts.count(name)) continue;
    seen.insert(name);
    auto it = inB.find(name);
    if (it == inB.end()) {
      report.onlyInA.push_back(name);
      continue;
    }
    report.rows.push_back(compareOne(name, t, *it->second, options));
  }
  for (const auto& [name, t] : b)
    if (!seen.count(name) && !options.excepts.count(name)) report.onlyInB.push_back(name);
  return report;
}

std::string compareReportHtml(const CompareReport& r, const std::string& titleA, const std::string& titleB,
                              const CompareOptions& o) {
  std::ostringstream s;
  size_t failed = 0;
  for (const auto& row : r.rows) failed += row.pass ? 0 : 1;
  s << "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>tosakit compare</title>\n<style>\n"
       "body{font-family:sans-serif;margin:20px}table{border-collapse:collapse}"
       "td,th{border:1px solid #999;padding:3px 8px;font-size:13px}th{background:#eee}"
       "tr.pass td.v{background:#c8f0c8}tr.fail td.v{background:#f5b5b5}tr.skip td{background:#eee}"
       "td.num{text-align:right;font-family:monospace}\n</style></head><body>\n";
  s << "<h1>tosakit compare</h1>\n<p>A: " << escapeHtml(titleA) << "<br>B: " << escapeHtml(titleB)
    << "<br>tolerance: cosine &ge; " << fmt(o.minCosine, 4) << ", euclidean &ge; " << fmt(o.minEuclidean, 4)
    << "<br><b id=\"summary\">" << r.rows.size() - failed << " of " << r.rows.size()
    << " tensors within tolerance</b></p>\n";
  s << similarityPlot(r, o);
  s << "<table id=\"comparison\">\n<tr><th>#</th><th>tensor</th><th>shape</th><th>cosine</th><th>euclidean</th>"
       "<th>SQNR (dB)</th><th>max |A-B|</th><th>result</th></tr>\n";
  for (size_t i = 0; i < r.rows.size(); ++i) {
    const auto& row = r.rows[i];
    const char* cls = !row.note.empty() ? "skip" : row.pass ? "pass" : "fail";
    s << "<tr class=\"" << cls << "\"><td class=\"num\">" << i << "</td><td>" << escapeHtml(row.name)
      << (row.dequantized ? " <i>(dequantized)</i>" : "") << "</td><td>" << row.shape << "</td>";
    if (!row.note.empty()) {
      s << "<td colspan=\"4\">" << escapeHtml(row.note) << "</td><td>FAIL</td></tr>\n";
      continue;
    }
    s << "<td class=\"num v\">" << fmt(row.cosine) << "</td><td class=\"num v\">" << fmt(row.euclidean)
      << "</td><td class=\"num\">" << fmt(row.sqnr, 2) << "</td><td class=\"num\">" << fmt(row.maxAbsDiff)
      << "</td><td class=\"v\">" << (row.pass ? "PASS" : "FAIL") << "</td></tr>\n";
  }
  s << "</table>\n";
  if (!r.onlyInA.empty() || !r.onlyInB.empty())
    s << "<p>only in A: " << r.onlyInA.size() << " tensors; only in B: " << r.onlyInB.size() << " tensors</p>\n";
  s << "</body></html>\n";
  return s.str();
}

}  // namespace tosakit

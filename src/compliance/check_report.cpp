// CheckReport: the verdicts and their text and JSON forms (`tosakit check`, `--json`).
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tosakit/check.h"

namespace tosakit {

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Compliant: return "compliant";
    case Verdict::NotCompliant: return "NOT compliant";
    case Verdict::NotJudged: return "not judged";
  }
  return "?";
}

int CheckReport::count(Verdict v) const {
  int n = 0;
  for (const CheckEntry& e : entries) n += e.verdict == v;
  return n;
}

Verdict CheckReport::verdict() const {
  if (count(Verdict::NotCompliant) > 0) return Verdict::NotCompliant;
  if (count(Verdict::NotJudged) > 0 && !allowNotJudged) return Verdict::NotJudged;
  return Verdict::Compliant;
}

int CheckReport::exitCode() const {
  switch (verdict()) {
    case Verdict::Compliant: return 0;
    case Verdict::NotCompliant: return 1;
    case Verdict::NotJudged: return 7;
  }
  return 1;
}

namespace {

std::string fmtWorst(double w) {
  if (std::isnan(w)) return "-";
  if (std::isinf(w)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", w);
  return buf;
}

const char* verdictKey(Verdict v) {
  switch (v) {
    case Verdict::Compliant: return "compliant";
    case Verdict::NotCompliant: return "not_compliant";
    case Verdict::NotJudged: return "not_judged";
  }
  return "?";
}

}  // namespace

std::string CheckReport::notJudgedSummary(const Spelling& spell) const {
  auto name = [&](const std::string& p) { return spell ? spell(p) : p; };
  int n = count(Verdict::NotJudged);
  std::string what = std::to_string(n) + (perOp ? " result(s)" : " output(s)");
  if (allowNotJudged) return "not judged: " + what + " without a verdict, accepted by " + name("allow_not_judged");
  std::string hint = perOp ? "capture every op's result (a run's intermediates)"
                           : "give " + name("intermediates") +
          " (every op's result, as a run captures them) to "
          "judge op by op";
  return "not judged: " + what + " without a verdict (reasons above; exit 7): " + hint + ", or " +
      name("allow_not_judged") + " to accept them";
}

std::string CheckReport::toText(const Spelling& spell) const {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({perOp ? "result" : "output", "op", "location", "rule", "worst/bound", "verdict"});
  for (const CheckEntry& e : entries)
    rows.push_back({e.name, e.op.empty() ? "-" : e.op, e.location.empty() ? "-" : e.location,
                    (e.rule.empty() ? "-" : e.rule) + (e.section.empty() ? "" : " [" + e.section + "]"),
                    fmtWorst(e.worst), verdictName(e.verdict)});
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  std::ostringstream o;
  for (const std::string& n : notes) o << "(" << n << ")\n";
  for (const auto& r : rows) {
    for (size_t i = 0; i < r.size(); ++i) {
      o << r[i];
      if (i + 1 < r.size()) o << std::string(width[i] - r[i].size() + 2, ' ');
    }
    o << "\n";
  }
  for (const CheckEntry& e : entries)
    if (e.verdict != Verdict::Compliant) o << e.name << ": " << verdictName(e.verdict) << ": " << e.reason << "\n";
  o << count(Verdict::Compliant) << " compliant, " << count(Verdict::NotCompliant) << " not compliant, "
    << count(Verdict::NotJudged) << " not judged\n";
  if (count(Verdict::NotJudged) > 0) o << notJudgedSummary(spell) << "\n";
  return o.str();
}

std::string CheckReport::toJson(const Spelling& spell) const {
  nlohmann::json j;
  j["per_op"] = perOp;
  j["compliant"] = compliant();
  j["notes"] = notes;
  nlohmann::json arr = nlohmann::json::array();
  for (const CheckEntry& e : entries) {
    nlohmann::json x;
    x["name"] = e.name;
    x["op"] = e.op;
    x["location"] = e.location;
    x["rule"] = e.rule;
    x["section"] = e.section;
    x["verdict"] = verdictKey(e.verdict);
    if (std::isnan(e.worst))
      x["worst"] = nullptr;
    else if (std::isinf(e.worst))
      x["worst"] = "inf";
    else
      x["worst"] = e.worst;
    x["worst_index"] = e.worstIndex;
    x["reason"] = e.reason;
    arr.push_back(std::move(x));
  }
  j["entries"] = std::move(arr);
  j["overall_verdict"] = verdictKey(verdict());
  j["exit_code"] = exitCode();
  j["allow_not_judged"] = allowNotJudged;
  if (count(Verdict::NotJudged) > 0) j["not_judged_summary"] = notJudgedSummary(spell);
  j["counts"] = {{"compliant", count(Verdict::Compliant)},
                 {"not_compliant", count(Verdict::NotCompliant)},
                 {"not_judged", count(Verdict::NotJudged)}};
  return j.dump(1) + "\n";
}

}  // namespace tosakit

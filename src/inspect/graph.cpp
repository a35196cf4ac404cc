// tosakit graph: a function as a Graphviz graph (TPU-MLIR's mlir2graph; docs/INSPECT.md).
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>

#include <cstdio>
#include <map>
#include <mutex>
#include <sstream>

#include "core/file_io.h"
#include "inspect/inspect_internal.h"
#include "tosakit/inspect.h"
#include "tosakit/session.h"

namespace tosakit {

namespace {

std::string escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string shortOpName(const std::string& name) {
  const size_t dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

std::string fillColor(const std::string& op) {
  if (op == "tosa.conv2d" || op == "tosa.conv3d" || op == "tosa.depthwise_conv2d" || op == "tosa.transpose_conv2d" ||
      op == "tosa.matmul")
    return "#cfe2ff";
  if (op == "tosa.rescale" || op == "tosa.cast") return "#ffe5b4";
  if (op == "tosa.cond_if" || op == "tosa.while_loop") return "#e2d9f3";
  if (op == "tosa.reshape" || op == "tosa.transpose" || op == "tosa.slice" || op == "tosa.concat" || op == "tosa.pad")
    return "#e9ecef";
  return "#d1e7dd";
}

std::string elementsText(int64_t n) {
  char buf[32];
  if (n >= 1000000)
    std::snprintf(buf, sizeof buf, "%.2f M", n / 1e6);
  else if (n >= 1000)
    std::snprintf(buf, sizeof buf, "%.2f K", n / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%lld", (long long)n);
  return buf;
}

int64_t elementsOf(const ir::ValueType& t) {
  int64_t n = 1;
  for (int64_t d : t.dims) n *= d < 0 ? 0 : d;
  return n;
}

class DotWriter {
 public:
  DotWriter(const ir::Function& fn, const GraphOptions& options) : fn_(fn), options_(options) {}

  std::string write() {
    out_ << "digraph \"" << escaped(fn_.name) << "\" {\n"
         << "  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
         << "  edge [color=\"#555555\", arrowsize=0.6];\n";
    for (size_t i = 0; i < fn_.inputs().size(); ++i) {
      const ir::Value* v = fn_.inputs()[i];
      const std::string id = newNode();
      producer_[v] = id;
      node(id,
           fn_.inputName(i) + "\n" + v->type.toString() +
               quantLine(fn_.argAttr(i, "tosakit.qscale"), fn_.argAttr(i, "tosakit.qzp")),
           "ellipse", "#fff3cd", fn_.inputName(i), "  ", "in:" + fn_.inputName(i));
    }
    block(fn_.body, "  ");
    const std::vector<ir::Value*> outs = fn_.outputs();
    for (size_t i = 0; i < outs.size(); ++i) {
      const std::string id = newNode();
      node(id, fn_.outputName(i) + "\n" + fn_.resultTypes[i].toString(), "ellipse", "#fff3cd", fn_.outputName(i), "  ",
           "out:" + fn_.outputName(i));
      edgeFrom(outs[i], id);
    }
    // Edges at the root: an edge statement inside a cluster would make both its ends members of the cluster.
    out_ << edges_.str() << "}\n";
    return out_.str();
  }

  int64_t nodes() const { return nextNode_; }

 private:
  const ir::Function& fn_;
  const GraphOptions& options_;
  std::ostringstream out_, edges_;
  std::map<const ir::Value*, std::string> producer_;
  std::map<std::string, int> usedNames_;
  int64_t nextNode_ = 0;
  int64_t nextCluster_ = 0;

  std::string newNode() { return "n" + std::to_string(nextNode_++); }

  // `svgId` ("op:NAME", "in:NAME", "out:NAME") becomes the SVG group's id, for the HTML pages' scripts.
  void node(const std::string& id, const std::string& label, const std::string& shape, const std::string& color,
            const std::string& name, const std::string& indent = "  ", const std::string& svgId = "") {
    out_ << indent << id << " [label=\"" << escaped(label) << "\", shape=" << shape << ", fillcolor=\"" << color
         << "\", tooltip=\"" << escaped(name) << "\"";
    if (!svgId.empty()) out_ << ", id=\"" << escaped(svgId) << "\"";
    out_ << "];\n";
  }

  void edgeFrom(const ir::Value* v, const std::string& to) {
    auto it = producer_.find(v);
    if (it != producer_.end()) edges_ << "  " << it->second << " -> " << to << ";\n";
  }

  static std::string quantLine(const ir::Attribute* scale, const ir::Attribute* zp) {
    if (!scale) return {};
    char buf[96];
    std::snprintf(buf, sizeof buf, "\nscale %.6g zp %lld", scale->f, (long long)(zp ? zp->i : 0));
    return buf;
  }

  // The name Session captures the op's result under, "#n" for repeats as in the dump.
  std::string nameOf(const ir::Operation& op) {
    std::string name = intermediateName(op, 0);
    if (int n = ++usedNames_[name]; n > 1) name += "#" + std::to_string(n);
    return name;
  }

  std::string constantLines(const ir::Operation& op) {
    std::string lines;
    int64_t count = 0, elements = 0;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const ir::Value* v = op.operands[i];
      if (!v->definingOp || !inspect::isConstant(*v->definingOp)) continue;
      ++count;
      elements += elementsOf(v->type);
      std::string arg = inspect::operandArgName(op, i);
      lines += "\n" + (arg.empty() ? "operand " + std::to_string(i) : arg) + ": " + v->type.toString();
    }
    if (!count || !options_.collapseConstants) return lines;
    return "\n" + std::to_string(count) + " constant" + (count > 1 ? "s" : "") + ", " + elementsText(elements) +
        " elements";
  }

  std::string opLabel(const ir::Operation& op, const std::string& name) {
    std::string label = shortOpName(op.name) + "\n" + name;
    for (const ir::Value* r : op.results) label += "\n" + r->type.toString();
    label += quantLine(op.attr("tosakit.qscale"), op.attr("tosakit.qzp"));
    return label + constantLines(op);
  }

  void block(const ir::Block& b, const std::string& indent) {
    for (const auto& op : b.ops) {
      if (inspect::isConstant(*op)) continue;
      if (inspect::isTerminator(*op)) {
        if (op->name == "tosa.yield") yieldNode(*op, indent);
        continue;
      }
      operation(*op, indent);
    }
  }

  void operation(const ir::Operation& op, const std::string& indent) {
    const std::string id = newNode();
    const std::string name = nameOf(op);
    node(id, opLabel(op, name), "box", fillColor(op.name), name, indent, "op:" + name);
    for (const ir::Value* v : op.operands) edgeFrom(v, id);
    for (const ir::Value* r : op.results) producer_[r] = id;
    static const char* const kRegionNames[2][2] = {{"then", "else"}, {"cond", "body"}};
    const int kind = op.name == "tosa.while_loop" ? 1 : 0;
    for (size_t k = 0; k < op.regions.size(); ++k) {
      for (const auto& blk : op.regions[k]->blocks) {
        out_ << indent << "subgraph cluster_" << nextCluster_++ << " {\n"
             << indent << "  label=\"" << escaped(name) << ": " << (k < 2 ? kRegionNames[kind][k] : "region")
             << "\"; style=\"rounded,dashed\"; color=\"#6f42c1\"; fontsize=10;\n";
        for (size_t a = 0; a < blk->args.size(); ++a) {
          const ir::Value* v = blk->args[a];
          const std::string argId = newNode();
          producer_[v] = argId;
          const std::string argName = v->name.empty() ? "region arg " + std::to_string(a) : v->name;
          node(argId, argName + "\n" + v->type.toString(), "ellipse", "#f8f9fa", argName, indent + "  ");
          edges_ << "  " << id << " -> " << argId << " [style=dashed];\n";
        }
        block(*blk, indent + "  ");
        out_ << indent << "}\n";
      }
    }
  }

  void yieldNode(const ir::Operation& op, const std::string& indent) {
    const std::string id = newNode();
    node(id, "yield", "box", "#f8f9fa", "yield", indent);
    for (const ir::Value* v : op.operands) edgeFrom(v, id);
  }
};

// Graphviz's context and its plugin list are process-wide state; one layout at a time.
std::mutex& graphvizMutex() {
  static std::mutex m;
  return m;
}

std::string htmlPage(const std::string& title, const std::string& svg) {
  return "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>" + title + "</title>\n<style>\n" +
      inspect::graphViewStyle() + "</style></head><body>\n<div id=\"bar\"><b>" + title + "</b> &nbsp; " +
      inspect::graphSearchBox() + "</div>\n<div id=\"view\">" + svg + "</div>\n<script>\n" +
      inspect::graphViewScript() + "</script></body></html>\n";
}

std::string extensionOf(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(dot);
}

}  // namespace

Result<std::string> graphDot(const ir::Module& module, const GraphOptions& options) {
  const ir::Function* fn = module.function(options.function);
  if (!fn) return Status::invalid("the model has no function '" + options.function + "'");
  return DotWriter(*fn, options).write();
}

Result<std::string> dotToSvg(const std::string& dot, const std::string& context) {
  std::lock_guard<std::mutex> lock(graphvizMutex());
  GVC_t* gvc = gvContext();
  if (!gvc) return Status::internal(context + ": Graphviz: no context");
  Agraph_t* g = agmemread(dot.c_str());
  if (!g) {
    gvFreeContext(gvc);
    return Status::internal(context + ": Graphviz could not read the generated DOT");
  }
  std::string svg;
  Status status = Status::ok();
  if (gvLayout(gvc, g, "dot") != 0) {
    status = Status::internal(context + ": Graphviz's dot layout failed (graphviz plugins installed?)");
  } else {
    char* data = nullptr;
    unsigned int length = 0;
    if (gvRenderData(gvc, g, "svg", &data, &length) != 0 || !data)
      status = Status::internal(context + ": Graphviz could not render SVG");
    else
      svg.assign(data, length);
    if (data) gvFreeRenderData(data);
    gvFreeLayout(gvc, g);
  }
  agclose(g);
  gvFreeContext(gvc);
  if (!status) return status;
  return svg;
}

namespace inspect {

std::string graphViewStyle() {
  return R"(body{margin:0;font-family:Helvetica,Arial,sans-serif}
#bar{position:fixed;top:0;left:0;right:0;height:30px;background:#f8f9fa;border-bottom:1px solid #ccc;padding:6px;z-index:1}
#view{position:absolute;top:43px;left:0;right:0;bottom:0;overflow:hidden;cursor:grab}
#view svg{width:100%;height:100%}
.hit polygon,.hit ellipse,.hit path{stroke:#d63384!important;stroke-width:4px!important}
)";
}

std::string graphSearchBox() {
  return R"(<input id="q" placeholder="search a layer name" size="24"> <button id="go">find</button>
<span id="msg"></span> &nbsp; wheel: zoom, drag: pan)";
}

// Pan (drag), zoom (wheel) and search over the inline SVG in #view; tkView.focus(g) zooms to a node.
std::string graphViewScript() {
  return R"(var tkView=(function(){
var svg=document.querySelector('#view svg');svg.removeAttribute('width');svg.removeAttribute('height');
var vb=svg.viewBox.baseVal,full={x:vb.x,y:vb.y,w:vb.width,h:vb.height};
function set(x,y,w,h){svg.setAttribute('viewBox',x+' '+y+' '+w+' '+h);}
svg.addEventListener('wheel',function(e){e.preventDefault();var r=svg.getBoundingClientRect();
var f=e.deltaY>0?1.2:1/1.2,v=svg.viewBox.baseVal,px=v.x+(e.clientX-r.left)/r.width*v.width,
py=v.y+(e.clientY-r.top)/r.height*v.height;set(px-(px-v.x)*f,py-(py-v.y)*f,v.width*f,v.height*f);},{passive:false});
var drag=null;svg.addEventListener('mousedown',function(e){drag={x:e.clientX,y:e.clientY};});
window.addEventListener('mouseup',function(){drag=null;});
window.addEventListener('mousemove',function(e){if(!drag)return;var r=svg.getBoundingClientRect(),v=svg.viewBox.baseVal;
set(v.x-(e.clientX-drag.x)*v.width/r.width,v.y-(e.clientY-drag.y)*v.height/r.height,v.width,v.height);
drag={x:e.clientX,y:e.clientY};});
function focus(g){var b=g.getBBox(),root=svg.querySelector('g.graph'),m=root.transform.baseVal.consolidate();
m=m?m.matrix:{a:1,d:1,e:0,f:0};var cx=m.a*(b.x+b.width/2)+m.e,cy=m.d*(b.y+b.height/2)+m.f;
var w=Math.max(b.width*m.a*4,Math.min(full.w,800)),h=w*svg.clientHeight/Math.max(1,svg.clientWidth);
set(cx-w/2,cy-h/2,w,h);}
function find(){var q=document.getElementById('q').value.trim(),hits=[];
document.querySelectorAll('g.node').forEach(function(g){g.classList.remove('hit');
if(q&&(g.id.indexOf(q)>=0||g.textContent.indexOf(q)>=0)){g.classList.add('hit');hits.push(g);}});
document.getElementById('msg').textContent=q?hits.length+' match(es)':'';
if(hits.length)focus(hits[0]);else set(full.x,full.y,full.w,full.h);return hits;}
document.getElementById('go').addEventListener('click',find);
document.getElementById('q').addEventListener('keydown',function(e){if(e.key==='Enter')find();});
return {svg:svg,focus:focus,find:find};
})();
)";
}

Result<std::string> layoutInlineSvg(const ir::Module& module, const GraphOptions& options, const std::string& context) {
  const ir::Function* fn = module.function(options.function);
  if (!fn) return Status::invalid("the model has no function '" + options.function + "'");
  DotWriter writer(*fn, options);
  const std::string dot = writer.write();
  if (writer.nodes() > options.maxLayoutNodes)
    return Status::invalid("function '" + options.function + "' has " + std::to_string(writer.nodes()) +
                           " graph nodes, more than " + std::to_string(options.maxLayoutNodes) +
                           " for a layout: write .dot, or cut the model first (tosakit cut)");
  auto svg = dotToSvg(dot, context);
  if (!svg) return svg.status();
  // The XML prolog and doctype of Graphviz's SVG are not allowed inside HTML.
  const size_t start = svg->find("<svg");
  return start == std::string::npos ? *svg : svg->substr(start);
}

}  // namespace inspect

Status writeGraph(const ir::Module& module, const std::string& path, const GraphOptions& options) {
  const std::string ext = extensionOf(path);
  if (ext != ".dot" && ext != ".svg" && ext != ".html")
    return Status::invalid(path + ": unknown graph format '" + ext + "' (expected .dot, .svg or .html)");
  if (ext == ".dot") {
    auto dot = graphDot(module, options);
    if (!dot) return dot.status();
    return writeFileAtomic(path, *dot);
  }
  auto svg = inspect::layoutInlineSvg(module, options, path);
  if (!svg) return svg.status();
  if (ext == ".svg")
    return writeFileAtomic(path, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n" + *svg);
  return writeFileAtomic(path, htmlPage("tosakit graph: " + options.function, *svg));
}

}  // namespace tosakit

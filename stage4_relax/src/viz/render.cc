/*!
 * \file viz/render.cc
 * \brief Rendering of the Relax graph visualizer (stage 4): DOT text laid out by Graphviz's
 * library (libgvc: `agmemread` → `gvLayout(..., "dot")` → `gvRenderData`) into SVG, PNG or PDF
 * bytes, and `Render`, which writes a model to a file in the format its extension names. When
 * the build found no Graphviz (MINITVM_HAVE_GRAPHVIZ unset) rendering is a RuntimeError naming
 * Graphviz; the DOT text and the terminal view work regardless.
 */
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>

#include "minitvm/runtime/registry.h"
#include "viz/viz_util.h"

#ifdef MINITVM_HAVE_GRAPHVIZ
#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#endif

namespace minitvm {
namespace relax {
namespace viz {

namespace {

#ifdef MINITVM_HAVE_GRAPHVIZ
/*! \brief Graphviz keeps global state: one render at a time. */
std::mutex& GraphvizMutex() {
  static std::mutex m;
  return m;
}

/*! \brief Graphviz's own messages for the render in progress (guarded by GraphvizMutex). */
std::string& GraphvizMessages() {
  static std::string messages;
  return messages;
}

int CollectMessage(char* text) {
  GraphvizMessages() += text;
  return 0;
}
#endif

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

bool HasGraphviz() {
#ifdef MINITVM_HAVE_GRAPHVIZ
  return true;
#else
  return false;
#endif
}

std::string RenderDot(const std::string& dot, const std::string& format) {
  if (format != "svg" && format != "png" && format != "pdf") {
    MINITVM_THROW(ValueError) << "relax viz: Graphviz renders svg, png or pdf here, not \""
                              << format << "\"";
  }
#ifndef MINITVM_HAVE_GRAPHVIZ
  MINITVM_THROW(RuntimeError)
      << "relax viz: rendering " << format
      << " needs Graphviz (libgvc), and this build of minitvm was configured without it "
         "(install libgraphviz-dev and graphviz, then re-run cmake); the DOT text (dot()) and "
         "the terminal view work without it";
#else
  std::lock_guard<std::mutex> lock(GraphvizMutex());
  GraphvizMessages().clear();
  agseterr(AGWARN);
  agseterrf(CollectMessage);
  // One context for the process, never freed (intentionally immortal): each gvContext() reads
  // Graphviz's plugin configuration into a buffer that gvFreeContext does not free (~3.6 KB a
  // call, found by the leak check, docs/sanitizers.md) and loads the plugins again.
  static GVC_t* const gvc = gvContext();
  if (!gvc) MINITVM_THROW(RuntimeError) << "relax viz: Graphviz's gvContext() failed";
  Agraph_t* g = agmemread(dot.c_str());
  if (!g) {
    std::string msg = GraphvizMessages();
    MINITVM_THROW(ValueError) << "relax viz: Graphviz could not read the DOT text: "
                              << (msg.empty() ? "syntax error" : msg);
  }
  if (gvLayout(gvc, g, "dot") != 0) {
    std::string msg = GraphvizMessages();
    agclose(g);
    MINITVM_THROW(RuntimeError)
        << "relax viz: Graphviz could not lay out the graph with \"dot\" (is Graphviz's dot "
           "layout plugin installed? apt-get install graphviz): "
        << msg;
  }
  char* data = nullptr;
  unsigned int length = 0;
  int rc = gvRenderData(gvc, g, format.c_str(), &data, &length);
  std::string out;
  if (rc == 0 && data) out.assign(data, length);
  if (data) gvFreeRenderData(data);
  gvFreeLayout(gvc, g);
  agclose(g);
  if (rc != 0 || out.empty()) {
    MINITVM_THROW(RuntimeError) << "relax viz: Graphviz has no renderer for \"" << format
                                << "\" (install the graphviz package with its cairo plugin): "
                                << GraphvizMessages();
  }
  return out;
#endif
}

std::string FormatFromPath(const std::string& path) {
  auto slash = path.find_last_of('/');
  auto dot = path.find_last_of('.');
  std::string ext = (dot == std::string::npos || (slash != std::string::npos && dot < slash))
                        ? ""
                        : path.substr(dot + 1);
  ext = Lower(ext);
  if (ext == "htm") ext = "html";
  if (ext == "gv") ext = "dot";
  if (ext == "svg" || ext == "png" || ext == "pdf" || ext == "html" || ext == "dot" ||
      ext == "txt") {
    return ext;
  }
  MINITVM_THROW(ValueError) << "relax viz: unknown output format "
                            << (ext.empty() ? "(no extension)" : "\"." + ext + "\"") << " of \""
                            << path << "\"; use one of .svg .png .pdf .html .dot .txt";
}

void Render(const VizModel& model, const std::string& path, const std::string& format_in) {
  std::string format = format_in.empty() ? FormatFromPath(path) : Lower(format_in);
  if (format != "svg" && format != "png" && format != "pdf" && format != "html" &&
      format != "dot" && format != "txt") {
    MINITVM_THROW(ValueError) << "relax viz: unknown output format \"" << format
                              << "\"; use one of svg png pdf html dot txt";
  }
  // Open the file first: a path that cannot be written fails before any layout work.
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    MINITVM_THROW(ValueError) << "relax viz: cannot write \"" << path
                              << "\": " << std::strerror(errno);
  }
  std::string bytes;
  try {
    if (format == "dot") {
      bytes = ToDot(model);
    } else if (format == "txt") {
      bytes = ToTerm(model, 1 << 30);
    } else if (format == "html") {
      bytes = ToHtml(model);
    } else {
      bytes = RenderDot(ToDot(model), format);
    }
  } catch (...) {
    out.close();
    std::remove(path.c_str());  // leave no empty file behind
    throw;
  }
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) MINITVM_THROW(ValueError) << "relax viz: writing \"" << path << "\" failed";
}

}  // namespace viz
}  // namespace relax
}  // namespace minitvm

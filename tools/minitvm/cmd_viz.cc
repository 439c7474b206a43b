/*!
 * \file tools/minitvm/cmd_viz.cc
 * \brief `minitvm viz FILE -o OUT [--func NAME]` (stage 4): parse a TVMScript module (`.py` or
 * `.tvmscript`, as `minitvm show` does) and draw its Relax functions with the graph visualizer
 * (minitvm/relax/viz.h) into OUT — .svg, .png, .pdf, .html (interactive page), .dot or .txt —
 * or, without -o, print the terminal view. Bad input exits 1 with the reason; a usage error 2.
 */
#include <fstream>
#include <iostream>

#include "driver.h"
#include "minitvm/relax/viz.h"
#include "minitvm/script/tir_parser.h"

namespace minitvm {
namespace tools {
namespace {

constexpr const char* kVizUsage =
    "usage: minitvm viz FILE [-o OUT] [--func NAME] [--max-nodes=N]\n\n"
    "Parse FILE (TVMScript: an @I.ir_module class in a .py or .tvmscript file; - reads stdin)\n"
    "and draw its Relax functions (main first; --func NAME draws one). OUT's extension picks\n"
    "the format: .svg .png .pdf (rendered by Graphviz), .html (an interactive page), .dot\n"
    "(Graphviz text) or .txt (the terminal view). Without -o the terminal view is printed,\n"
    "at most --max-nodes nodes per function (default 100).\n";

int RunViz(const CommandLine& line) {
  std::vector<std::string> args = line.args;
  std::string out;
  std::string func = line.Get("func").value_or("");
  if (auto o = line.Get("output")) out = *o;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o") {
      if (i + 1 >= args.size()) {
        std::cerr << "minitvm viz: -o needs a file name\n" << kVizUsage;
        return 2;
      }
      out = args[++i];
    } else if (args[i].rfind("-o", 0) == 0 && args[i].size() > 2) {
      out = args[i].substr(2);
    } else {
      rest.push_back(args[i]);
    }
  }
  // `--func main` (with a space) arrives as the option `func` with no value and `main` as an
  // argument after FILE.
  if (line.Get("func") && func.empty()) {
    if (rest.size() != 2) {
      std::cerr << "minitvm viz: --func needs a function name\n" << kVizUsage;
      return 2;
    }
    // The driver keeps options and arguments apart, so which one is FILE is told by the
    // file system: the other is the function's name.
    bool first_is_file = rest[0] == "-" || std::ifstream(rest[0]).good();
    func = first_is_file ? rest[1] : rest[0];
    rest.erase(rest.begin() + (first_is_file ? 1 : 0));
  }
  if (rest.size() != 1) {
    std::cerr << kVizUsage;
    return 2;
  }
  int64_t max_nodes = 100;
  if (auto m = line.Get("max-nodes")) {
    try {
      max_nodes = std::stoll(*m);
    } catch (const std::exception&) {
      std::cerr << "minitvm viz: --max-nodes must be a number, not \"" << *m << "\"\n";
      return 2;
    }
  }
  const std::string& path = rest[0];
  // Check the output's format before parsing, so a typo fails fast.
  std::string format = out.empty() ? "" : relax::viz::FormatFromPath(out);
  ObjectRef parsed = script::FromSource(ReadSource(path), path == "-" ? "<stdin>" : path);
  if (!parsed.as<IRModuleNode>()) {
    MINITVM_THROW(ValueError) << "minitvm viz: " << path
                              << " defines a single PrimFunc, not a module with Relax functions";
  }
  IRModule mod = Downcast<IRModule>(parsed);
  relax::viz::VizOptions options;
  if (!func.empty()) options.functions.push_back(func);
  relax::viz::VizModel model = relax::viz::BuildModel(mod, options);
  if (model.graphs.empty()) {
    MINITVM_THROW(ValueError) << "minitvm viz: " << path << " has no Relax function to draw";
  }
  if (out.empty()) {
    std::cout << relax::viz::ToTerm(model, max_nodes);
    return 0;
  }
  relax::viz::Render(model, out, format);
  auto [nodes, edges] = relax::viz::CountNodesEdges(model);
  std::cout << "wrote " << out << " (" << model.graphs.size() << " function"
            << (model.graphs.size() == 1 ? "" : "s") << ", " << nodes << " nodes, " << edges
            << " edges)\n";
  return 0;
}

const bool kRegistered = [] {
  Command viz;
  viz.name = "viz";
  viz.summary = "draw the Relax graph of a TVMScript module (svg/png/pdf/html/dot/txt)";
  viz.usage = [] { return std::string(kVizUsage); };
  viz.run = RunViz;
  return RegisterCommand(viz);
}();

}  // namespace
}  // namespace tools
}  // namespace minitvm

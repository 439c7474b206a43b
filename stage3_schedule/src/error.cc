/*!
 * \file error.cc
 * \brief Rendering schedule errors (stage 3): the summary, the checked preconditions and the
 * IR with the offending loops and blocks marked.
 */
#include "minitvm/tir/schedule/error.h"

#include <sstream>
#include <vector>

#include "minitvm/script/tir_printer.h"
#include "minitvm/tir/stmt_functor.h"

namespace minitvm {
namespace tir {

ErrorRenderLevel ParseErrorRenderLevel(const std::string& level) {
  if (level == "detail") return ErrorRenderLevel::kDetail;
  if (level == "fast") return ErrorRenderLevel::kFast;
  if (level == "none") return ErrorRenderLevel::kNone;
  MINITVM_THROW(ValueError) << "error_render_level must be \"detail\", \"fast\" or \"none\", not \""
                            << level << "\"";
}

ScheduleError::ScheduleError(std::string kind, std::string summary)
    : Error("ScheduleError." + kind, kind + ": " + summary),
      rule_(std::move(kind)),
      summary_(std::move(summary)) {}

namespace {

std::vector<std::string> SplitLines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream is(text);
  std::string line;
  while (std::getline(is, line)) lines.push_back(line);
  return lines;
}

bool IsWordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/*! \brief True when `word` occurs in `text` as a whole identifier. */
bool HasWord(const std::string& text, const std::string& word) {
  size_t pos = 0;
  while ((pos = text.find(word, pos)) != std::string::npos) {
    bool left = pos == 0 || !IsWordChar(text[pos - 1]);
    size_t end = pos + word.size();
    bool right = end >= text.size() || !IsWordChar(text[end]);
    if (left && right) return true;
    pos = end;
  }
  return false;
}

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b);
}

int FindBlockLine(const std::vector<std::string>& lines, const std::string& name) {
  std::string needle = "T.block(\"" + name + "\"";
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find(needle) != std::string::npos) return static_cast<int>(i);
  }
  return -1;
}

bool IsLoopLineOf(const std::string& line, const std::string& var) {
  std::string t = Trim(line);
  if (t.rfind("for ", 0) != 0) return false;
  size_t in = t.find(" in ");
  return in != std::string::npos && HasWord(t.substr(4, in - 4), var);
}

/*! \brief The first block name at or below a statement (to disambiguate loop names). */
std::string FirstBlockBelow(const ObjectRef& node) {
  std::string name;
  if (auto* s = node.as<StmtNode>()) {
    PostOrderVisit(GetRef<Stmt>(s), [&](const ObjectRef& n) {
      if (auto* b = n.as<BlockNode>(); b && name.empty()) name = b->name_hint.str();
    });
  }
  return name;
}

int FindNodeLine(const std::vector<std::string>& lines, const ObjectRef& node) {
  if (auto* block = node.as<BlockNode>()) return FindBlockLine(lines, block->name_hint.str());
  auto* loop = node.as<ForNode>();
  if (loop == nullptr) return -1;
  std::string var = loop->loop_var->name_hint.str();
  // Search upwards from the first block under the loop: loop names repeat across nests.
  std::string below = FirstBlockBelow(node);
  int start = below.empty() ? -1 : FindBlockLine(lines, below);
  if (start >= 0) {
    for (int i = start; i >= 0; --i) {
      if (IsLoopLineOf(lines[i], var)) return i;
    }
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    if (IsLoopLineOf(lines[i], var)) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

std::string RenderIRWithMarks(const IRModule& mod, const std::string& func_name,
                              const std::vector<ScheduleError::Location>& marks) {
  ObjectRef target = mod;
  if (mod->ContainGlobalVar(func_name)) target = mod->Lookup(func_name);
  std::string text;
  try {
    text = script::AsScript(target);
  } catch (const Error&) {
    text = runtime::Repr(target);
  }
  std::vector<std::string> lines = SplitLines(text);
  std::vector<std::string> notes(lines.size());
  for (const auto& m : marks) {
    int line = FindNodeLine(lines, m.node);
    if (line < 0) continue;
    notes[line] += (notes[line].empty() ? "" : "; ") + m.note;
  }
  std::ostringstream os;
  for (size_t i = 0; i < lines.size(); ++i) {
    os << lines[i];
    if (!notes[i].empty()) os << "  # <- error here: " << notes[i];
    os << "\n";
  }
  return os.str();
}

std::string ScheduleError::Render(ErrorRenderLevel level, const std::string& call,
                                  const IRModule& mod, const std::string& func_name) const {
  std::ostringstream os;
  os << call << " failed: " << rule_ << ": " << summary_;
  if (level == ErrorRenderLevel::kNone) return os.str();
  if (!subjects_.empty()) {
    os << "\n  involves: ";
    for (size_t i = 0; i < subjects_.size(); ++i) os << (i ? ", " : "") << subjects_[i];
  }
  if (!preconditions_.empty()) {
    os << "\n  preconditions:";
    for (const auto& p : preconditions_) {
      os << "\n    " << (p.met ? "[met]    " : "[not met]") << " " << p.text;
    }
  }
  for (const std::string& d : details_) os << "\n  " << d;
  if (level == ErrorRenderLevel::kDetail) {
    os << "\n  the IR of \"" << func_name << "\" (error location marked):\n";
    std::string ir = RenderIRWithMarks(mod, func_name, locations_);
    std::istringstream is(ir);
    std::string line;
    while (std::getline(is, line)) os << "    " << line << "\n";
  }
  std::string out = os.str();
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace tir
}  // namespace minitvm

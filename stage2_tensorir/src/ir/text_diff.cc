/*!
 * \file text_diff.cc
 * \brief UnifiedDiff (stage 2): a longest-common-subsequence line diff grouped into hunks.
 */
#include "minitvm/ir/text_diff.h"

#include <algorithm>
#include <sstream>
#include <vector>

namespace minitvm {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream is(text);
  std::string line;
  while (std::getline(is, line)) lines.push_back(line);
  return lines;
}

/*! \brief One line of the edit script: kept (' '), removed ('-') or added ('+'). */
struct Op {
  char tag;
  size_t ai, bi;  ///< positions in the old and the new text
};

/*!
 * \brief The edit script from `a` to `b`. The common prefix and suffix are kept as they are
 * (IR passes change a part of a module), the LCS runs on the middle only; a middle too large
 * for the quadratic table becomes "remove all, add all".
 */
std::vector<Op> EditScript(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t pre = 0;
  while (pre < a.size() && pre < b.size() && a[pre] == b[pre]) ++pre;
  size_t suf = 0;
  while (suf < a.size() - pre && suf < b.size() - pre &&
         a[a.size() - 1 - suf] == b[b.size() - 1 - suf]) {
    ++suf;
  }
  std::vector<Op> ops;
  for (size_t k = 0; k < pre; ++k) ops.push_back({' ', k, k});
  size_t n = a.size() - pre - suf, m = b.size() - pre - suf;
  if (n * m <= 4000000) {
    std::vector<std::vector<int>> lcs(n + 1, std::vector<int>(m + 1, 0));
    for (size_t i = n; i-- > 0;) {
      for (size_t j = m; j-- > 0;) {
        lcs[i][j] = a[pre + i] == b[pre + j] ? lcs[i + 1][j + 1] + 1
                                             : std::max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    size_t i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a[pre + i] == b[pre + j]) {
        ops.push_back({' ', pre + i++, pre + j++});
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        ops.push_back({'-', pre + i++, pre + j});  // removals first, as diff -u prints them
      } else {
        ops.push_back({'+', pre + i, pre + j++});
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) ops.push_back({'-', pre + i, pre});
    for (size_t j = 0; j < m; ++j) ops.push_back({'+', pre + n, pre + j});
  }
  for (size_t k = 0; k < suf; ++k) ops.push_back({' ', pre + n + k, pre + m + k});
  return ops;
}

/*!
 * \brief A hunk's line range as diff -u writes it: "start,count", just "start" for one line,
 * and for no lines the line before ("0,0" at the top).
 */
std::string Range(size_t first_index, size_t count) {
  if (count == 1) return std::to_string(first_index + 1);
  return std::to_string(count == 0 ? first_index : first_index + 1) + "," + std::to_string(count);
}

}  // namespace

std::string UnifiedDiff(const std::string& before, const std::string& after,
                        const std::string& before_name, const std::string& after_name) {
  std::vector<std::string> a = Lines(before), b = Lines(after);
  std::vector<Op> ops = EditScript(a, b);
  std::ostringstream os;
  bool any = false;
  const size_t ctx = 3;
  size_t k = 0;
  while (k < ops.size()) {
    if (ops[k].tag == ' ') {
      ++k;
      continue;
    }
    // A hunk: from ctx lines before this change to ctx lines after the last nearby change.
    size_t start = k >= ctx ? k - ctx : 0;
    size_t end = k;
    while (end < ops.size()) {
      if (ops[end].tag != ' ') {
        ++end;
        continue;
      }
      size_t run = end;
      while (run < ops.size() && ops[run].tag == ' ') ++run;
      if (run == ops.size() || run - end > 2 * ctx) {
        end = std::min(ops.size(), end + ctx);
        break;
      }
      end = run;
    }
    if (!any) {
      os << "--- " << before_name << "\n+++ " << after_name << "\n";
      any = true;
    }
    size_t a_len = 0, b_len = 0;
    for (size_t t = start; t < end; ++t) {
      if (ops[t].tag != '+') ++a_len;
      if (ops[t].tag != '-') ++b_len;
    }
    os << "@@ -" << Range(ops[start].ai, a_len) << " +" << Range(ops[start].bi, b_len) << " @@\n";
    for (size_t t = start; t < end; ++t) {
      const std::string& line = ops[t].tag == '+' ? b[ops[t].bi] : a[ops[t].ai];
      os << ops[t].tag << line << "\n";
    }
    k = end;
  }
  return os.str();
}

}  // namespace minitvm

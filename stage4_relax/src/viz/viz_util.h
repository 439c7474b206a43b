/*!
 * \file viz/viz_util.h
 * \brief Helpers shared by the parts of the Relax graph visualizer (stage 4, internal): the
 * short text forms of struct info, op names and attributes, the style of each node kind, and
 * text escaping for DOT, HTML and JSON.
 */
#ifndef MINITVM_STAGE4_SRC_VIZ_VIZ_UTIL_H_
#define MINITVM_STAGE4_SRC_VIZ_VIZ_UTIL_H_

#include <map>
#include <string>
#include <vector>

#include "minitvm/relax/struct_info.h"
#include "minitvm/relax/viz.h"

namespace minitvm {
namespace relax {
namespace viz {

/*! \brief Struct info in a few characters: `(1, 64, 56, 56) float32`, `Tuple(...)`. */
std::string CompactStructInfo(const ObjectRef& info);
/*! \brief "relax.nn.conv2d" → "nn.conv2d". */
std::string ShortOpName(const std::string& name);
/*! \brief At most three `key=value` attributes on at most two short lines. */
std::string ShortAttrs(const std::vector<std::string>& attrs);

/*! \brief The Graphviz attributes of a node of `kind` (shape, fill colour, ...). */
std::map<std::string, std::string> KindStyle(NodeKind kind);
/*! \brief The fill and border colours of a diff status ("added", "removed"). */
std::map<std::string, std::string> StatusStyle(const std::string& status);

/*! \brief `s` as a DOT double-quoted string, quotes included. */
std::string DotQuote(const std::string& s);
/*! \brief `s` with &, <, >, " escaped for HTML/XML. */
std::string HtmlEscape(const std::string& s);
/*! \brief `s` as a JSON string, quotes included; "</" written as "<\/" for inline scripts. */
std::string JsonQuote(const std::string& s);

}  // namespace viz
}  // namespace relax
}  // namespace minitvm

#endif  // MINITVM_STAGE4_SRC_VIZ_VIZ_UTIL_H_

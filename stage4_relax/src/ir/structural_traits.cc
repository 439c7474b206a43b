/*!
 * \file structural_traits.cc
 * \brief How structural equality and hashing treat Relax nodes (stage 4): Relax variables are
 * variables of the alpha-equivalence (matched where they are bound — function parameters,
 * `VarBinding` and `MatchCast` targets — with their names ignored), and a struct info at a
 * binding site defines the symbolic shape variables it mentions first, so two parses of
 * `def f(x: R.Tensor(("n", 4)))` are equal although each has its own `n`.
 */
#include "minitvm/ir/structural.h"
#include "minitvm/relax/expr.h"

namespace minitvm {
namespace relax {

namespace {

struct RegisterRelaxStructuralTraits {
  RegisterRelaxStructuralTraits() {
    StructuralTraits var;
    var.is_var = true;
    var.defines_vars = true;  // the annotation `x: R.Tensor((n, 4))` defines n
    var.ignored_fields = {"name_hint"};
    RegisterStructuralTraits(VarNode::_type_key, var);  // DataflowVar derives from it

    StructuralTraits sinfo;
    sinfo.defines_vars = true;  // R.match_cast(x, R.Tensor((m,))) and function signatures
    RegisterStructuralTraits(StructInfoNode::_type_key, sinfo);
  }
};

const RegisterRelaxStructuralTraits kRegisterRelaxStructuralTraits;

}  // namespace

}  // namespace relax
}  // namespace minitvm

/*!
 * \file minitvm/topi/topi.h
 * \brief The whole TE operator library (TOPI) of stage 2 in one include. Every operator is
 * a function from te::Tensors to te::Tensors; `te::create_prim_func` turns the result into a
 * PrimFunc, and the interpreter runs it. Python reaches each through "topi.<name>" globals.
 */
#ifndef MINITVM_TOPI_TOPI_H_
#define MINITVM_TOPI_TOPI_H_

#include "minitvm/topi/broadcast.h"
#include "minitvm/topi/elemwise.h"
#include "minitvm/topi/matmul.h"
#include "minitvm/topi/nn.h"
#include "minitvm/topi/reduction.h"
#include "minitvm/topi/transform.h"

#endif  // MINITVM_TOPI_TOPI_H_

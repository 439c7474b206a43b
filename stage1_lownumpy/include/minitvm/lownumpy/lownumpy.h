/*!
 * \file minitvm/lownumpy/lownumpy.h
 * \brief The whole lownumpy reference library (stage 1) in one include: NumPy-style
 * operators written as plain loops over NDArray, and the reference models built from them.
 *
 * Every operator is also registered as a global function "lownumpy.<name>", so Python
 * (`minitvm.lownumpy`) and the later stages call the same code.
 */
#ifndef MINITVM_LOWNUMPY_LOWNUMPY_H_
#define MINITVM_LOWNUMPY_LOWNUMPY_H_

#include "minitvm/lownumpy/creation.h"
#include "minitvm/lownumpy/elementwise.h"
#include "minitvm/lownumpy/iteration.h"
#include "minitvm/lownumpy/linalg.h"
#include "minitvm/lownumpy/manip.h"
#include "minitvm/lownumpy/models.h"
#include "minitvm/lownumpy/nn.h"
#include "minitvm/lownumpy/reduce.h"

#endif  // MINITVM_LOWNUMPY_LOWNUMPY_H_

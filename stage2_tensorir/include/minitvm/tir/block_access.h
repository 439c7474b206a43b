/*!
 * \file minitvm/tir/block_access.h
 * \brief Forwarding header (stage 2): block access/region analysis now lives in the
 * `tir/analysis/` layer, minitvm/tir/analysis/block_access.h. Include that one in new code.
 */
#ifndef MINITVM_TIR_BLOCK_ACCESS_H_
#define MINITVM_TIR_BLOCK_ACCESS_H_

#include "minitvm/tir/analysis/block_access.h"

#endif  // MINITVM_TIR_BLOCK_ACCESS_H_

/*
 * comm.h: which dump entries are communication operators.
 *
 * msprobe's rule (msprobe-firstdiff.md section 4.3): the entry name starts
 * with "Distributed", "MintDistributed" or "communication.comm_func" and
 * contains one of the collective or point-to-point words (send, recv,
 * broadcast, all_reduce, reduce, all_gather, gather, scatter, all_to_all,
 * ...) anywhere; so Distributed.barrier is not one, batch_isend_irecv is.
 */
#ifndef PROBE_COMM_H
#define PROBE_COMM_H

#include "../core/compat.h"

bool comm_is_communication(const char *entry, size_t len);

/* msprobe -da's ignored operators: names containing Torch.empty, Torch.fill or Tensor.__setitem__. */
bool comm_is_ignored_op(const char *entry, size_t len);

#endif

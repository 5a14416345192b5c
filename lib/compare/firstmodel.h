/*
 * firstmodel.h: the inside of struct first_stream (first.h), shared by
 * first.c (the analysis: records in, findings kept, ranks decided),
 * firsttext.c (the report for people) and firstms.c (msprobe's -da
 * answer).  Nothing else includes it.
 */
#ifndef PROBE_FIRSTMODEL_H
#define PROBE_FIRSTMODEL_H

#include "first.h"
#include "alike.h"
#include "verdict.h"
#include "noise.h"
#include "../records/pair.h"
#include "../core/strmap.h"

/* A divergence (or a culprit) kept for the output. */
struct finding {
	char *line;             /* the record as it came */
	size_t len;
	char *verdict, *reason; /* ours, when worked out here (NULL: the record has them) */
	char *tensor_json;      /* our tensor comparison as a "tensor" object, when worked out here */
	int64_t rank, step, seq;
	int mode;               /* its folder (exec_mode) */
	char *entry, *name, *state;
	size_t n;               /* 1 for the first on its rank */
	bool cause;
	bool parameter;         /* a "parameters" leaf */
	bool scalar;            /* a scalar argument that differs (without the budget: a cause wherever it is) */
	size_t same_as;         /* the same tensor as the rank's divergence #same_as (0: none) */
	int64_t carried_from;   /* a parameter carried from this earlier step by the optimizer (-1: not) */
	uint64_t unchosen_before; /* divergences of its rank before it that --where did not choose */
	int inputs;             /* of its operator, for an output: INPUTS_* */
	uint64_t earlier_within; /* leaves that differed within the band before it */
	uint64_t comm_before;   /* communication operators its rank had started before its operator */
	bool in_comm;           /* it is a leaf of a communication operator */
	bool received;          /* an output of a communication operator whose inputs were the same */
	char *why;              /* one sentence for people */
	char *what;             /* nonfinite: which statistics are not finite */
	bool started;           /* its rank started it (the first finding of a starting rank) */
	/* the rounding budget that decided it (noise.h), when the stream has one */
	bool budgeted;
	const char *structural; /* what differs that rounding cannot make (static), or NULL */
	double delta, budget, ratio, own, carried, reduction, unit;
	const char *coarser;    /* the coarser dtype's name (static) */
	uint64_t rounding_before; /* leaves of its rank within the budget before it */
	char *unpaired_of;      /* it is the output of an entry without a golden partner: the leaf where it differs */
	struct rounded *before; /* --explain: the leaves judged rounding just before it (nbefore, oldest first) */
	size_t nbefore;
};

enum { INPUTS_NA = -1, INPUTS_DIFFER = 0, INPUTS_SAME = 1, INPUTS_WITHIN = 2, INPUTS_ROUNDING = 3 };

/* A leaf judged rounding, for --explain. */
struct rounded {
	char *name;
	double delta, budget;
};
#define EXPLAIN_KEEP 16

/* A recent output's target side (its fingerprint) and how far it was from the golden. */
struct noise_slot {
	uint64_t fp;
	double delta, scale;
	bool tainted;
	double lineage;         /* the coarsest unit roundoff among the differing tensors it was made from */
};
#define NOISE_SLOTS 4096

/* A recent output of an entry without a golden partner (a hook, an inserted cast). */
struct unpaired {
	uint64_t fp;            /* its target side's fingerprint */
	char *entry, *line;     /* the entry, the pair record */
	size_t len;
	int64_t seq;
};
#define UNPAIRED_KEEP 8

/* msprobe's view of one entry (its -da rule, or overflow_check's), for --msprobe. */
struct ms_entry {
	char *entry;
	bool comm;
	bool flagged;           /* diff (-da) or anomaly (overflow_check) */
	bool input_bad;         /* overflow_check: its inputs hold inf/nan */
	char *data_info;        /* the JSON msprobe would show for it, when it may be reported */
	char *stack;            /* its frames as JSON, when attached */
	char *construct;        /* its module chain as JSON, when attached */
};

/*
 * A rank, or in a MindSpore graph/pynative root a rank of one folder: the
 * two folders are runs of their own (leafrec.h's exec_mode), never one
 * sequence, and each has its own answer.
 */
struct rank_state {
	int64_t rank;
	int mode;                /* exec_mode: LEAF_EXEC_NONE, or its folder */
	char *proc;              /* without a rank: the proc<pid> folder of its dump, or NULL (leafrec.h) */
	/* the operator being read */
	char *entry;
	int64_t step;
	bool entry_is_comm;
	int inputs;              /* INPUTS_SAME until an input or parameter differs */
	/* nonfinite: the operator being read, its first non-finite input and output leaves */
	struct bad_leaf { char *line; size_t len; char *what, *name, *state; int64_t seq; } bad_in, bad_out;
	bool seen_nonfinite;     /* an inf or a NaN in any leaf before the operator being read */
	/* so far */
	uint64_t comm;           /* communication operators started */
	uint64_t diffs, within;  /* leaves beyond / within the band */
	uint64_t pairs, same, diff, unmatched, golden_only, unreadable, leaves, propagators;
	int64_t first_diff_step; /* the step of its first divergence (when diffs) */
	uint64_t unchosen;       /* divergences --where did not choose, while fewer than n were kept */
	struct strmap reported;  /* fingerprint and step of the inputs and parameters reported -> their n */
	struct finding *found;
	size_t nfound, found_alloc;
	/* --msprobe */
	struct ms_entry *ms;
	size_t nms, ms_alloc;
	bool ms_cur_flag;        /* the current entry, msprobe's rule */
	struct strbuf ms_in, ms_out; /* its data_info parts */
	char *cur_stack, *cur_construct; /* its frames and module chain, when attached (probe-stack) */
	bool ms_in_bad, ms_out_bad;
	/* the rounding budget (noise.h): the operator being read */
	double in_rel, in_abs;   /* its inputs' and parameters' largest delta, and largest delta times scale */
	bool in_tainted;         /* one of them carries a difference beyond rounding */
	double in_lineage;       /* the coarsest unit roundoff among the differing ones' lineages */
	double out_rel;          /* its outputs' largest delta so far */
	bool out_tainted;
	char in_shape[2][64];    /* the shapes of its first two tensor inputs ("": unknown) */
	int nshapes;
	/* so far */
	double max_delta;        /* the largest delta of a leaf that differed */
	double max_lineage;      /* the coarsest lineage of a differing output so far */
	int64_t any_diff_step;   /* the first step with a difference of any size (-1: none) */
	uint64_t rounding;       /* leaves within the budget, not carrying a difference beyond it */
	double coarsest_unit;    /* the coarsest dtype among them, and its name (static) */
	const char *coarsest;
	double worst_ratio;      /* the largest delta / budget among them, and its leaf */
	char *worst_leaf;
	struct noise_slot *outputs; /* recent outputs by fingerprint (NOISE_SLOTS) */
	struct noise_slot *forwards; /* recent forward entries by their name's hash: what their backward works from */
	struct rounded explain[EXPLAIN_KEEP]; /* --explain: the last leaves judged rounding before its first finding */
	uint64_t nexplain;
	struct strbuf scalars;   /* the scalar arguments that differ, a line each (for the report) */
	uint64_t nscalars;
	struct unpaired unpaired[UNPAIRED_KEEP];
	unsigned nunpaired;      /* kept so far (the last UNPAIRED_KEEP in a ring) */
	bool prev_unpaired;      /* the entry before the one being read had no golden partner */
	bool cur_unpaired;       /* the one being read has none so far */
	char *last_unpaired;     /* the last entry without a partner */
};

struct first_stream {
	struct first_options opts;
	bool banded;
	bool noise;              /* the rounding budget decides (no band, not --bitwise, two runs) */
	struct rank_state *ranks; /* after first_finish(): by folder (exec_mode), then rank */
	size_t nranks, ranks_alloc;
	bool md5;                /* msprobe's mode: md5 (for the -da rule) */
	struct alike *alike;     /* the like-for-like check (two runs) */
	struct rank_state *cur;  /* the rank of the last target leaf: golden-only pairs after it are its */
	bool finished;
	size_t found;
	struct strbuf scratch;
};

/* For the writers, from first.c. */
/* The pairs compared (matched and readable) and all pairs, golden-only ones included, over the ranks. */
void first_counts(const struct first_stream *f, uint64_t *compared, uint64_t *total);
/* The ranks of the folder of ranks[i], after first_finish(): [i, end) (ranks[i] the folder's first). */
size_t first_folder_end(const struct first_stream *f, size_t i);
/* Whether the rank's first finding is one of those that started it (decided by first_finish()). */
bool first_rank_started(const struct rank_state *rs);
/* The summary's answer: divergence, incomplete, within_rounding, within_band, no_divergence. */
const char *first_answer(const struct first_stream *f);
/* Leaves within the rounding budget over the ranks. */
uint64_t first_rounding(const struct first_stream *f);
/* The finding's role as the records name it: cause, propagated, received, same_tensor; culprit or enters (--nonfinite). */
const char *first_role_name(const struct first_stream *f, const struct finding *x);

#endif

/* pickle.c: the bounded pickle machine that runs a .pt's data.pkl (tensorio.h). */
#include "tensorio.h"

static int pk_fail(struct pickle *pk, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int pk_fail(struct pickle *pk, const char *fmt, ...)
{
	va_list ap;
	strbuf_addf(pk->err, "%s: data.pkl byte %zu: ", pk->path, pk->op);
	va_start(ap, fmt);
	strbuf_vaddf(pk->err, fmt, ap);
	va_end(ap);
	return -1;
}

static const char *pk_kind_name(enum pk_kind k)
{
	static const char *const names[] = { "None", "a bool", "an int", "a float", "a str", "a tuple",
					     "a list", "a dict", "a global", "a storage", "a tensor" };
	return names[k];
}

struct pk_value *tio_pk_val(struct pickle *pk, uint32_t i)
{
	return &pk->values[i];
}

static int pk_take(struct pickle *pk, size_t n, const unsigned char **p)
{
	if (n > pk->len - pk->pos)
		return pk_fail(pk, "truncated: opcode 0x%02x needs %zu more bytes", pk->data[pk->op], n);
	*p = pk->data + pk->pos;
	pk->pos += n;
	return 0;
}

static int pk_new(struct pickle *pk, const struct pk_value *v, uint32_t *idx)
{
	if (pk->nvalues >= PK_MAX_VALUES)
		return pk_fail(pk, "more than %d objects: not one tensor", PK_MAX_VALUES);
	ALLOC_GROW(pk->values, pk->nvalues + 1, pk->values_alloc);
	pk->values[pk->nvalues] = *v;
	*idx = (uint32_t)pk->nvalues++;
	return 0;
}

static int pk_push(struct pickle *pk, uint32_t idx)
{
	if (pk->depth >= PK_MAX_DEPTH)
		return pk_fail(pk, "the stack grows beyond %d objects", PK_MAX_DEPTH);
	pk->stack[pk->depth++] = idx;
	return 0;
}

static int pk_push_new(struct pickle *pk, const struct pk_value *v)
{
	uint32_t idx;
	return pk_new(pk, v, &idx) ? -1 : pk_push(pk, idx);
}

/* The stack above the innermost mark is all an opcode may pop. */
static size_t pk_floor(const struct pickle *pk)
{
	return pk->nmarks ? pk->marks[pk->nmarks - 1] : 0;
}

static int pk_pop(struct pickle *pk, uint32_t *idx)
{
	if (pk->depth <= pk_floor(pk))
		return pk_fail(pk, "stack underflow");
	*idx = pk->stack[--pk->depth];
	return 0;
}

static int pk_top(struct pickle *pk, uint32_t *idx)
{
	if (pk->depth <= pk_floor(pk))
		return pk_fail(pk, "stack underflow");
	*idx = pk->stack[pk->depth - 1];
	return 0;
}

/* The stack above the innermost mark; the mark is removed. */
static int pk_pop_mark(struct pickle *pk, size_t *from)
{
	if (!pk->nmarks)
		return pk_fail(pk, "no MARK to pop to");
	*from = pk->marks[--pk->nmarks];
	return 0;
}

/* A tuple of the n values at stack[from ...], which leave the stack. */
static int pk_make_tuple(struct pickle *pk, size_t from)
{
	size_t n = pk->depth - from;
	struct pk_value v = { .kind = PK_TUPLE };
	if (n > PK_MAX_ITEMS - pk->nitems)
		return pk_fail(pk, "more than %d tuple items: not one tensor", PK_MAX_ITEMS);
	ALLOC_GROW(pk->items, pk->nitems + n, pk->items_alloc);
	if (n) /* items is still NULL before the first item */
		memcpy(pk->items + pk->nitems, pk->stack + from, n * sizeof(*pk->items));
	v.u.tuple.first = (uint32_t)pk->nitems;
	v.u.tuple.n = (uint32_t)n;
	pk->nitems += n;
	pk->depth = from;
	return pk_push_new(pk, &v);
}

static int pk_tuple_n(struct pickle *pk, size_t n)
{
	if (pk->depth - pk_floor(pk) < n)
		return pk_fail(pk, "stack underflow");
	return pk_make_tuple(pk, pk->depth - n);
}

static const struct pk_value *pk_item(struct pickle *pk, const struct pk_value *tuple, size_t i)
{
	return &pk->values[pk->items[tuple->u.tuple.first + i]];
}

static int pk_memo_put(struct pickle *pk, uint64_t i)
{
	uint32_t top = 0;
	if (i >= PK_MAX_MEMO)
		return pk_fail(pk, "memo index %llu out of range", (unsigned long long)i);
	if (pk_top(pk, &top))
		return -1;
	if (i >= pk->memo_alloc) {
		size_t old = pk->memo_alloc;
		ALLOC_GROW(pk->memo, i + 1, pk->memo_alloc);
		memset(pk->memo + old, 0, (pk->memo_alloc - old) * sizeof(*pk->memo));
	}
	if (!pk->memo[i])
		pk->memo_count++;
	pk->memo[i] = top + 1;
	return 0;
}

static int pk_memo_get(struct pickle *pk, uint64_t i)
{
	if (i >= pk->memo_alloc || !pk->memo[i])
		return pk_fail(pk, "memo index %llu was never set", (unsigned long long)i);
	return pk_push(pk, pk->memo[i] - 1);
}

/* One "text\n" line of a GLOBAL opcode. */
static int pk_line(struct pickle *pk, const unsigned char **s, size_t *n)
{
	size_t avail = pk->len - pk->pos;
	const unsigned char *start = pk->data + pk->pos;
	const unsigned char *nl = memchr(start, '\n', avail < PK_MAX_LINE ? avail : PK_MAX_LINE);
	if (!nl)
		return pk_fail(pk, "GLOBAL without a newline in its first %d bytes", PK_MAX_LINE);
	*s = start;
	*n = (size_t)(nl - start);
	pk->pos += *n + 1;
	return 0;
}

/* The closed set of globals a saved tensor uses; anything else is refused. */
static int pk_global(struct pickle *pk, const unsigned char *mod, size_t ml, const unsigned char *name, size_t nl)
{
	static const struct { const char *mod, *name; enum pk_global g; } known[] = {
		{ "torch._utils", "_rebuild_tensor_v2", G_REBUILD_V2 },
		{ "torch._utils", "_rebuild_tensor_v3", G_REBUILD_V3 },
		{ "torch._utils", "_rebuild_parameter", G_REBUILD_PARAMETER },
		{ "torch._utils", "_rebuild_parameter_with_state", G_REBUILD_PARAMETER_STATE },
		{ "torch._tensor", "_rebuild_from_type_v2", G_REBUILD_FROM_TYPE },
		{ "collections", "OrderedDict", G_ORDERED_DICT },
		{ "torch._tensor", "Tensor", G_TENSOR_CLASS },
		{ "torch", "Tensor", G_TENSOR_CLASS },
		{ "torch.nn.parameter", "Parameter", G_PARAMETER_CLASS },
		{ "torch.storage", "UntypedStorage", G_UNTYPED_STORAGE },
		{ "torch", "UntypedStorage", G_UNTYPED_STORAGE },
	};
	struct pk_value v = { .kind = PK_GLOBAL };
	int d;
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (tio_is(mod, ml, known[i].mod) && tio_is(name, nl, known[i].name)) {
			v.u.global.g = known[i].g;
			v.u.global.dtype = -1;
			return pk_push_new(pk, &v);
		}
	if (tio_is(mod, ml, "torch")) {
		if ((d = dtype_from_storage((const char *)name, nl)) >= 0) {
			v.u.global.g = G_TYPED_STORAGE;
			v.u.global.dtype = d;
			return pk_push_new(pk, &v);
		}
		/* torch.float32 and the like pickle as GLOBAL 'torch float32' */
		if ((d = dtype_from_torch((const char *)name, nl)) >= 0) {
			v.u.global.g = G_DTYPE;
			v.u.global.dtype = d;
			return pk_push_new(pk, &v);
		}
	}
	return pk_fail(pk, "unknown global %.*s.%.*s", (int)ml, (const char *)mod, (int)nl, (const char *)name);
}

/* ('storage', storage class, key, location, numel) -> a storage reference */
static int pk_persistent(struct pickle *pk, uint32_t pid_idx)
{
	const struct pk_value *pid = tio_pk_val(pk, pid_idx), *tag, *cls, *key, *loc, *numel;
	struct pk_value v = { .kind = PK_STORAGE };
	if (pid->kind != PK_TUPLE || pid->u.tuple.n != 5)
		return pk_fail(pk, "persistent id is not a 5-tuple ('storage', class, key, location, numel)");
	tag = pk_item(pk, pid, 0), cls = pk_item(pk, pid, 1), key = pk_item(pk, pid, 2);
	loc = pk_item(pk, pid, 3), numel = pk_item(pk, pid, 4);
	if (tag->kind != PK_STR || !tio_is(tag->u.str.s, tag->u.str.len, "storage"))
		return pk_fail(pk, "persistent id is not a storage");
	if (cls->kind != PK_GLOBAL || (cls->u.global.g != G_TYPED_STORAGE && cls->u.global.g != G_UNTYPED_STORAGE))
		return pk_fail(pk, "persistent id names no storage class");
	if (key->kind != PK_STR || !key->u.str.len || key->u.str.len > PK_MAX_KEY)
		return pk_fail(pk, "storage key is not a short string");
	if (loc->kind != PK_STR)
		return pk_fail(pk, "storage location is not a string");
	if (numel->kind != PK_INT || numel->u.i < 0)
		return pk_fail(pk, "storage size is not a non-negative integer");
	v.u.storage.key = key->u.str.s;
	v.u.storage.key_len = key->u.str.len;
	v.u.storage.dtype = cls->u.global.g == G_TYPED_STORAGE ? cls->u.global.dtype : -1;
	v.u.storage.numel = numel->u.i;
	return pk_push_new(pk, &v);
}

static int pk_int_tuple(struct pickle *pk, const struct pk_value *t, const char *what, int64_t *out, int *n)
{
	if (t->kind != PK_TUPLE)
		return pk_fail(pk, "tensor %s is %s, not a tuple", what, pk_kind_name(t->kind));
	if (t->u.tuple.n > TENSOR_MAX_DIMS)
		return pk_fail(pk, "tensor %s has %u dimensions; at most %d are supported", what, t->u.tuple.n,
			       TENSOR_MAX_DIMS);
	for (uint32_t i = 0; i < t->u.tuple.n; i++) {
		const struct pk_value *v = pk_item(pk, t, i);
		if (v->kind != PK_INT)
			return pk_fail(pk, "tensor %s holds %s", what, pk_kind_name(v->kind));
		if (v->u.i < 0)
			return pk_fail(pk, "tensor %s holds a negative number: %lld", what, (long long)v->u.i);
		out[i] = v->u.i;
	}
	*n = (int)t->u.tuple.n;
	return 0;
}

/*
 * _rebuild_tensor_v2(storage, offset, size, stride, requires_grad, hooks[, metadata])
 * _rebuild_tensor_v3(storage, offset, size, stride, requires_grad, hooks, dtype[, metadata])
 */
static int pk_rebuild_tensor(struct pickle *pk, bool v3, const struct pk_value *args, uint32_t *result)
{
	const char *fn = v3 ? "_rebuild_tensor_v3" : "_rebuild_tensor_v2";
	uint32_t argc = args->u.tuple.n, fixed = v3 ? 7 : 6;
	const struct pk_value *storage, *offset, *grad, *hooks;
	struct pk_view *view;
	struct pk_value t = { .kind = PK_TENSOR };
	int n_stride;

	if (argc != fixed && argc != fixed + 1)
		return pk_fail(pk, "%s takes %u or %u arguments, not %u", fn, fixed, fixed + 1, argc);
	if (pk->nviews >= PK_MAX_VIEWS)
		return pk_fail(pk, "more than %d tensors: not one tensor", PK_MAX_VIEWS);
	view = &pk->views[pk->nviews];
	storage = pk_item(pk, args, 0), offset = pk_item(pk, args, 1);
	grad = pk_item(pk, args, 4), hooks = pk_item(pk, args, 5);
	if (storage->kind != PK_STORAGE)
		return pk_fail(pk, "%s of %s, not a storage", fn, pk_kind_name(storage->kind));
	view->storage = pk->items[args->u.tuple.first];
	view->dtype = storage->u.storage.dtype;
	if (v3) {
		const struct pk_value *dt = pk_item(pk, args, 6);
		if (dt->kind != PK_GLOBAL || dt->u.global.g != G_DTYPE)
			return pk_fail(pk, "%s: argument 7 is not a torch dtype", fn);
		if (view->dtype >= 0 && view->dtype != dt->u.global.dtype)
			return pk_fail(pk, "%s: a %s storage read as %s", fn, dtype_info(view->dtype)->name,
				       dtype_info(dt->u.global.dtype)->name);
		view->dtype = dt->u.global.dtype;
	} else if (view->dtype < 0) {
		return pk_fail(pk, "%s of an untyped storage: the element type is unknown", fn);
	}
	if (offset->kind != PK_INT || offset->u.i < 0)
		return pk_fail(pk, "%s: the storage offset is not a non-negative integer", fn);
	view->offset = offset->u.i;
	if (pk_int_tuple(pk, pk_item(pk, args, 2), "size", view->shape, &view->ndim) ||
	    pk_int_tuple(pk, pk_item(pk, args, 3), "stride", view->stride, &n_stride))
		return -1;
	if (n_stride != view->ndim)
		return pk_fail(pk, "%s: %d sizes but %d strides", fn, view->ndim, n_stride);
	if (grad->kind != PK_BOOL)
		return pk_fail(pk, "%s: requires_grad is %s, not a bool", fn, pk_kind_name(grad->kind));
	if (hooks->kind != PK_DICT)
		return pk_fail(pk, "%s: backward hooks are %s, not a dict", fn, pk_kind_name(hooks->kind));
	if (argc == fixed + 1 && pk_item(pk, args, fixed)->kind != PK_DICT)
		return pk_fail(pk, "%s: the metadata is not a dict", fn);
	t.u.tensor.view = pk->nviews++;
	t.u.tensor.requires_grad = grad->u.i != 0;
	return pk_new(pk, &t, result);
}

/* _rebuild_parameter(tensor, requires_grad, hooks) and _rebuild_parameter_with_state(..., state) */
static int pk_rebuild_parameter(struct pickle *pk, bool with_state, const struct pk_value *args, uint32_t *result)
{
	const struct pk_value *data, *grad;
	struct pk_value t;
	uint32_t want = with_state ? 4 : 3;
	if (args->u.tuple.n != want)
		return pk_fail(pk, "%s takes %u arguments, not %u",
			       with_state ? "_rebuild_parameter_with_state" : "_rebuild_parameter", want,
			       args->u.tuple.n);
	data = pk_item(pk, args, 0), grad = pk_item(pk, args, 1);
	if (data->kind != PK_TENSOR)
		return pk_fail(pk, "a Parameter of %s, not a tensor", pk_kind_name(data->kind));
	if (grad->kind != PK_BOOL)
		return pk_fail(pk, "a Parameter's requires_grad is %s, not a bool", pk_kind_name(grad->kind));
	if (pk_item(pk, args, 2)->kind != PK_DICT)
		return pk_fail(pk, "a Parameter's backward hooks are not a dict");
	t = *data;
	t.u.tensor.requires_grad = grad->u.i != 0;
	return pk_new(pk, &t, result);
}

static int pk_call(struct pickle *pk, const struct pk_value *fn, const struct pk_value *args, uint32_t *result,
		   bool nested);

/* _rebuild_from_type_v2(func, Tensor or Parameter, args, state): torch 2.x, for tensors with Python attributes */
static int pk_rebuild_from_type(struct pickle *pk, const struct pk_value *args, uint32_t *result, bool nested)
{
	const struct pk_value *fn, *cls, *inner;
	if (nested)
		return pk_fail(pk, "_rebuild_from_type_v2 inside _rebuild_from_type_v2");
	if (args->u.tuple.n != 4)
		return pk_fail(pk, "_rebuild_from_type_v2 takes 4 arguments, not %u", args->u.tuple.n);
	fn = pk_item(pk, args, 0), cls = pk_item(pk, args, 1), inner = pk_item(pk, args, 2);
	if (cls->kind != PK_GLOBAL || (cls->u.global.g != G_TENSOR_CLASS && cls->u.global.g != G_PARAMETER_CLASS))
		return pk_fail(pk, "_rebuild_from_type_v2 of a type other than Tensor or Parameter");
	if (inner->kind != PK_TUPLE)
		return pk_fail(pk, "_rebuild_from_type_v2: the arguments are %s, not a tuple",
			       pk_kind_name(inner->kind));
	return pk_call(pk, fn, inner, result, true);
}

/* REDUCE: fn(*args), for the callables of the closed set. */
static int pk_call(struct pickle *pk, const struct pk_value *fn, const struct pk_value *args, uint32_t *result,
		   bool nested)
{
	if (args->kind != PK_TUPLE)
		return pk_fail(pk, "call arguments are %s, not a tuple", pk_kind_name(args->kind));
	if (fn->kind != PK_GLOBAL)
		return pk_fail(pk, "call of %s", pk_kind_name(fn->kind));
	switch (fn->u.global.g) {
	case G_REBUILD_V2:
	case G_REBUILD_V3:
		return pk_rebuild_tensor(pk, fn->u.global.g == G_REBUILD_V3, args, result);
	case G_REBUILD_PARAMETER:
	case G_REBUILD_PARAMETER_STATE:
		return pk_rebuild_parameter(pk, fn->u.global.g == G_REBUILD_PARAMETER_STATE, args, result);
	case G_REBUILD_FROM_TYPE:
		return pk_rebuild_from_type(pk, args, result, nested);
	case G_ORDERED_DICT: {
		struct pk_value d = { .kind = PK_DICT };
		if (args->u.tuple.n)
			return pk_fail(pk, "OrderedDict called with %u arguments", args->u.tuple.n);
		return pk_new(pk, &d, result);
	}
	default:
		return pk_fail(pk, "a call of something that is not a tensor rebuild function");
	}
}

static int pk_reduce(struct pickle *pk, bool newobj)
{
	uint32_t fn = 0, args = 0, result = 0;
	if (pk_pop(pk, &args) || pk_pop(pk, &fn))
		return -1;
	if (newobj) {
		/* cls.__new__(cls, *args): only OrderedDict() makes sense here */
		const struct pk_value *c = tio_pk_val(pk, fn);
		if (c->kind != PK_GLOBAL || c->u.global.g != G_ORDERED_DICT)
			return pk_fail(pk, "NEWOBJ of something other than OrderedDict");
	}
	if (pk_call(pk, tio_pk_val(pk, fn), tio_pk_val(pk, args), &result, false))
		return -1;
	return pk_push(pk, result);
}

/* APPEND(S) and SETITEM(S): the target keeps a count; its contents are never needed. */
static int pk_add_items(struct pickle *pk, enum pk_kind kind, size_t from, size_t per_item)
{
	size_t n = pk->depth - from;
	struct pk_value *target;
	if (from == 0 || from <= pk_floor(pk))
		return pk_fail(pk, "stack underflow");
	target = tio_pk_val(pk, pk->stack[from - 1]);
	if (target->kind != kind)
		return pk_fail(pk, "adding items to %s, not %s", pk_kind_name(target->kind), pk_kind_name(kind));
	if (n % per_item)
		return pk_fail(pk, "odd number of stack items for SETITEMS");
	target->u.count += n / per_item;
	pk->depth = from;
	return 0;
}

static int pk_int_operand(struct pickle *pk, size_t n, bool is_signed_long)
{
	const unsigned char *p = NULL;
	struct pk_value v = { .kind = PK_INT };
	uint64_t u = 0;
	if (pk_take(pk, n, &p))
		return -1;
	for (size_t i = 0; i < n; i++)
		u |= (uint64_t)p[i] << (8 * i);
	if (is_signed_long && n && n < 8 && (p[n - 1] & 0x80))
		u |= ~(uint64_t)0 << (8 * n); /* sign-extend two's complement */
	else if (n == 4 && !is_signed_long)
		u = (uint64_t)(int64_t)(int32_t)(uint32_t)u; /* BININT is signed 32-bit */
	memcpy(&v.u.i, &u, sizeof(u));
	return pk_push_new(pk, &v);
}

static int pk_long(struct pickle *pk, size_t len_bytes)
{
	const unsigned char *p = NULL;
	uint64_t n;
	if (pk_take(pk, len_bytes, &p))
		return -1;
	n = len_bytes == 1 ? p[0] : get32(p);
	if (n > 8)
		return pk_fail(pk, "an integer of %llu bytes is too large", (unsigned long long)n);
	return pk_int_operand(pk, (size_t)n, true);
}

static int pk_string(struct pickle *pk, size_t len_bytes)
{
	const unsigned char *p = NULL;
	uint64_t n;
	struct pk_value v = { .kind = PK_STR };
	if (pk_take(pk, len_bytes, &p))
		return -1;
	n = len_bytes == 1 ? p[0] : len_bytes == 4 ? get32(p) : get64(p);
	if (n > pk->len - pk->pos)
		return pk_fail(pk, "a string of %llu bytes runs past the end of data.pkl", (unsigned long long)n);
	v.u.str.s = pk->data + pk->pos;
	v.u.str.len = (size_t)n;
	pk->pos += (size_t)n;
	return pk_push_new(pk, &v);
}

static int pk_float(struct pickle *pk)
{
	const unsigned char *p = NULL;
	struct pk_value v = { .kind = PK_FLOAT };
	uint64_t u = 0;
	if (pk_take(pk, 8, &p))
		return -1;
	for (int i = 0; i < 8; i++)
		u = u << 8 | p[i]; /* BINFLOAT is big-endian */
	memcpy(&v.u.f, &u, 8);
	return pk_push_new(pk, &v);
}

static int pk_stack_global(struct pickle *pk)
{
	uint32_t mod = 0, name = 0;
	const struct pk_value *m, *n;
	if (pk_pop(pk, &name) || pk_pop(pk, &mod))
		return -1;
	m = tio_pk_val(pk, mod), n = tio_pk_val(pk, name);
	if (m->kind != PK_STR || n->kind != PK_STR)
		return pk_fail(pk, "STACK_GLOBAL of %s and %s, not two strings", pk_kind_name(m->kind),
			       pk_kind_name(n->kind));
	return pk_global(pk, m->u.str.s, m->u.str.len, n->u.str.s, n->u.str.len);
}

static int pk_build(struct pickle *pk)
{
	uint32_t state = 0, target = 0;
	if (pk_pop(pk, &state) || pk_top(pk, &target))
		return -1;
	/* an OrderedDict with instance attributes; nothing else of ours takes a state */
	if (tio_pk_val(pk, target)->kind != PK_DICT)
		return pk_fail(pk, "BUILD of %s", pk_kind_name(tio_pk_val(pk, target)->kind));
	return 0;
}

/* One opcode; 1 at STOP. */
static int pk_step(struct pickle *pk)
{
	const unsigned char *p = NULL;
	struct pk_value v = { .kind = PK_NONE };
	uint32_t a = 0;
	size_t from = 0;
	unsigned op;

	pk->op = pk->pos;
	if (pk->pos >= pk->len)
		return pk_fail(pk, "the pickle ends without STOP");
	op = pk->data[pk->pos++];
	switch (op) {
	case 0x80: /* PROTO */
		if (pk_take(pk, 1, &p))
			return -1;
		if (*p < 2 || *p > 5)
			return pk_fail(pk, "pickle protocol %u is not supported", *p);
		return 0;
	case 0x95: /* FRAME: a length to skip over; the frame's contents are ordinary opcodes */
		if (pk_take(pk, 8, &p))
			return -1;
		if (get64(p) > pk->len - pk->pos)
			return pk_fail(pk, "a frame of %llu bytes runs past the end of data.pkl",
				       (unsigned long long)get64(p));
		return 0;
	case '.': /* STOP */
		return 1;
	case '(': /* MARK */
		if (pk->nmarks >= PK_MAX_MARKS)
			return pk_fail(pk, "more than %d nested MARKs", PK_MAX_MARKS);
		pk->marks[pk->nmarks++] = pk->depth;
		return 0;
	case 't': /* TUPLE */
		return pk_pop_mark(pk, &from) ? -1 : pk_make_tuple(pk, from);
	case ')': /* EMPTY_TUPLE */
		return pk_tuple_n(pk, 0);
	case 0x85: /* TUPLE1 */
		return pk_tuple_n(pk, 1);
	case 0x86: /* TUPLE2 */
		return pk_tuple_n(pk, 2);
	case 0x87: /* TUPLE3 */
		return pk_tuple_n(pk, 3);
	case ']': /* EMPTY_LIST */
		v.kind = PK_LIST;
		return pk_push_new(pk, &v);
	case '}': /* EMPTY_DICT */
		v.kind = PK_DICT;
		return pk_push_new(pk, &v);
	case 'a': /* APPEND */
		if (pk->depth <= pk_floor(pk))
			return pk_fail(pk, "stack underflow");
		return pk_add_items(pk, PK_LIST, pk->depth - 1, 1);
	case 'e': /* APPENDS */
		return pk_pop_mark(pk, &from) ? -1 : pk_add_items(pk, PK_LIST, from, 1);
	case 's': /* SETITEM */
		if (pk->depth < pk_floor(pk) + 2)
			return pk_fail(pk, "stack underflow");
		return pk_add_items(pk, PK_DICT, pk->depth - 2, 2);
	case 'u': /* SETITEMS */
		return pk_pop_mark(pk, &from) ? -1 : pk_add_items(pk, PK_DICT, from, 2);
	case 'X': /* BINUNICODE */
		return pk_string(pk, 4);
	case 0x8c: /* SHORT_BINUNICODE */
		return pk_string(pk, 1);
	case 0x8d: /* BINUNICODE8 */
		return pk_string(pk, 8);
	case 'J': /* BININT */
		return pk_int_operand(pk, 4, false);
	case 'K': /* BININT1 */
		return pk_int_operand(pk, 1, false);
	case 'M': /* BININT2 */
		return pk_int_operand(pk, 2, false);
	case 0x8a: /* LONG1 */
		return pk_long(pk, 1);
	case 0x8b: /* LONG4 */
		return pk_long(pk, 4);
	case 0x88: /* NEWTRUE */
	case 0x89: /* NEWFALSE */
		v.kind = PK_BOOL;
		v.u.i = op == 0x88;
		return pk_push_new(pk, &v);
	case 'N': /* NONE */
		return pk_push_new(pk, &v);
	case 'G': /* BINFLOAT */
		return pk_float(pk);
	case 'c': { /* GLOBAL */
		const unsigned char *mod, *name;
		size_t ml, nl;
		if (pk_line(pk, &mod, &ml) || pk_line(pk, &name, &nl))
			return -1;
		return pk_global(pk, mod, ml, name, nl);
	}
	case 0x93: /* STACK_GLOBAL */
		return pk_stack_global(pk);
	case 'Q': /* BINPERSID */
		return pk_pop(pk, &a) ? -1 : pk_persistent(pk, a);
	case 'R': /* REDUCE */
		return pk_reduce(pk, false);
	case 0x81: /* NEWOBJ */
		return pk_reduce(pk, true);
	case 'b': /* BUILD */
		return pk_build(pk);
	case 'q': /* BINPUT */
		return pk_take(pk, 1, &p) ? -1 : pk_memo_put(pk, p[0]);
	case 'r': /* LONG_BINPUT */
		return pk_take(pk, 4, &p) ? -1 : pk_memo_put(pk, get32(p));
	case 0x94: /* MEMOIZE */
		return pk_memo_put(pk, pk->memo_count);
	case 'h': /* BINGET */
		return pk_take(pk, 1, &p) ? -1 : pk_memo_get(pk, p[0]);
	case 'j': /* LONG_BINGET */
		return pk_take(pk, 4, &p) ? -1 : pk_memo_get(pk, get32(p));
	default:
		return pk_fail(pk, "unknown pickle opcode 0x%02x", op);
	}
}

/* Run data.pkl to its STOP; the result must be one tensor. */
int tio_pk_run(struct pickle *pk, const struct pk_value **tensor)
{
	int r;
	uint32_t top;
	const struct pk_value *v;
	while (!(r = pk_step(pk)))
		;
	if (r < 0)
		return -1;
	if (pk->nmarks)
		return pk_fail(pk, "STOP with a MARK still open");
	if (pk->depth != 1)
		return pk_fail(pk, "STOP with %zu objects on the stack, not one tensor", pk->depth);
	top = pk->stack[0];
	v = tio_pk_val(pk, top);
	if (v->kind != PK_TENSOR)
		return pk_fail(pk, "the pickle holds %s, not a tensor", pk_kind_name(v->kind));
	*tensor = v;
	return 0;
}

void tio_pk_release(struct pickle *pk)
{
	free(pk->values);
	free(pk->items);
	free(pk->memo);
}


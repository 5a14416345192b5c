/* pickle.c: the bounded pickle machine that runs a .pt's data.pkl (tensorio.h). */
#include "tensorio.h"

const struct pk_limits pk_limits_tensor = {
	.values = 65536, .items = 65536, .depth = 1024, .marks = 256, .views = 8, .memo = 65536,
	.any_global = false, .what = "not one tensor",
};

/*
 * A checkpoint: about twenty objects a tensor, so that 8 Mi objects take
 * hundreds of thousands of tensors; at most a few hundred MB of memory
 * whatever data.pkl holds.  The pickler batches SETITEMS by 1000 pairs:
 * the stack must take 2000 items over the nesting.
 */
const struct pk_limits pk_limits_ckpt = {
	.values = (size_t)1 << 23, .items = (size_t)1 << 23, .depth = (size_t)1 << 20, .marks = 4096,
	.views = (size_t)1 << 22, .memo = (size_t)1 << 23, .any_global = true,
	.what = "more than probe's checkpoint reader takes",
};

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

const char *tio_pk_kind_name(enum pk_kind k)
{
	static const char *const names[] = { "None", "a bool", "an int", "a float", "a str", "a tuple",
					     "a list", "a dict", "a global", "a storage", "a tensor", "bytes",
					     "an object", "a set" };
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
	if (pk->nvalues >= pk->lim->values)
		return pk_fail(pk, "more than %zu objects: %s", pk->lim->values, pk->lim->what);
	ALLOC_GROW(pk->values, pk->nvalues + 1, pk->values_alloc);
	pk->values[pk->nvalues] = *v;
	*idx = (uint32_t)pk->nvalues++;
	return 0;
}

static int pk_push(struct pickle *pk, uint32_t idx)
{
	if (pk->depth >= pk->lim->depth)
		return pk_fail(pk, "the stack grows beyond %zu objects", pk->lim->depth);
	ALLOC_GROW(pk->stack, pk->depth + 1, pk->stack_alloc);
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

static int pk_mark(struct pickle *pk)
{
	if (pk->nmarks >= pk->lim->marks)
		return pk_fail(pk, "more than %zu nested MARKs", pk->lim->marks);
	ALLOC_GROW(pk->marks, pk->nmarks + 1, pk->marks_alloc);
	pk->marks[pk->nmarks++] = pk->depth;
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
	if (n > pk->lim->items - pk->nitems)
		return pk_fail(pk, "more than %zu tuple items: %s", pk->lim->items, pk->lim->what);
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

const struct pk_value *tio_pk_item(const struct pickle *pk, const struct pk_value *tuple, size_t i)
{
	return &pk->values[pk->items[tuple->u.tuple.first + i]];
}

static int pk_memo_put(struct pickle *pk, uint64_t i)
{
	uint32_t top = 0;
	/* a real pickle memoizes at most one object per opcode: an index past data.pkl's length is a lie */
	if (i >= pk->lim->memo || (pk->lim->any_global && i > pk->len))
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

/*
 * The closed set of globals a saved tensor uses; anything else is refused,
 * or, reading a checkpoint, kept as a name (module and name inside data.pkl).
 */
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
	v.u.global.dtype = -1;
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (tio_is(mod, ml, known[i].mod) && tio_is(name, nl, known[i].name)) {
			v.u.global.g = known[i].g;
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
	if (!pk->lim->any_global || ml > UINT16_MAX || nl > UINT16_MAX)
		return pk_fail(pk, "unknown global %.*s.%.*s", (int)ml, (const char *)mod, (int)nl, (const char *)name);
	/* module and name lie in data.pkl (GLOBAL's lines, STACK_GLOBAL's strings) */
	v.u.global.g = G_OTHER;
	v.u.global.mod = (uint32_t)(mod - pk->data);
	v.u.global.name = (uint32_t)(name - pk->data);
	v.u.global.mod_len = (uint16_t)ml;
	v.u.global.name_len = (uint16_t)nl;
	return pk_push_new(pk, &v);
}

/* ('storage', storage class, key, location, numel) -> a storage reference */
static int pk_persistent(struct pickle *pk, uint32_t pid_idx)
{
	const struct pk_value *pid = tio_pk_val(pk, pid_idx), *tag, *cls, *key, *loc, *numel;
	struct pk_value v = { .kind = PK_STORAGE };
	if (pid->kind != PK_TUPLE || pid->u.tuple.n != 5)
		return pk_fail(pk, "persistent id is not a 5-tuple ('storage', class, key, location, numel)");
	tag = tio_pk_item(pk, pid, 0), cls = tio_pk_item(pk, pid, 1), key = tio_pk_item(pk, pid, 2);
	loc = tio_pk_item(pk, pid, 3), numel = tio_pk_item(pk, pid, 4);
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
		return pk_fail(pk, "tensor %s is %s, not a tuple", what, tio_pk_kind_name(t->kind));
	if (t->u.tuple.n > TENSOR_MAX_DIMS)
		return pk_fail(pk, "tensor %s has %u dimensions; at most %d are supported", what, t->u.tuple.n,
			       TENSOR_MAX_DIMS);
	for (uint32_t i = 0; i < t->u.tuple.n; i++) {
		const struct pk_value *v = tio_pk_item(pk, t, i);
		if (v->kind != PK_INT)
			return pk_fail(pk, "tensor %s holds %s", what, tio_pk_kind_name(v->kind));
		if (v->u.i < 0)
			return pk_fail(pk, "tensor %s holds a negative number: %lld", what, (long long)v->u.i);
		out[i] = v->u.i;
	}
	*n = (int)t->u.tuple.n;
	return 0;
}

/* A new view with room for ndim sizes and strides in pk->dims. */
static int pk_new_view(struct pickle *pk, struct pk_view **view)
{
	if (pk->nviews >= pk->lim->views)
		return pk_fail(pk, "more than %zu tensors: %s", pk->lim->views, pk->lim->what);
	ALLOC_GROW(pk->views, pk->nviews + 1, pk->views_alloc);
	*view = &pk->views[pk->nviews];
	memset(*view, 0, sizeof(**view));
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
	struct pk_view *view = NULL;
	struct pk_value t = { .kind = PK_TENSOR };
	int64_t shape[TENSOR_MAX_DIMS], stride[TENSOR_MAX_DIMS];
	int n_stride = 0, ndim = 0; /* set by pk_int_tuple(), unless it fails */

	if (argc != fixed && argc != fixed + 1)
		return pk_fail(pk, "%s takes %u or %u arguments, not %u", fn, fixed, fixed + 1, argc);
	if (pk_new_view(pk, &view))
		return -1;
	storage = tio_pk_item(pk, args, 0), offset = tio_pk_item(pk, args, 1);
	grad = tio_pk_item(pk, args, 4), hooks = tio_pk_item(pk, args, 5);
	if (storage->kind != PK_STORAGE)
		return pk_fail(pk, "%s of %s, not a storage", fn, tio_pk_kind_name(storage->kind));
	view->storage = pk->items[args->u.tuple.first];
	view->dtype = storage->u.storage.dtype;
	if (v3) {
		const struct pk_value *dt = tio_pk_item(pk, args, 6);
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
	if (pk_int_tuple(pk, tio_pk_item(pk, args, 2), "size", shape, &ndim) ||
	    pk_int_tuple(pk, tio_pk_item(pk, args, 3), "stride", stride, &n_stride))
		return -1;
	if (n_stride != ndim)
		return pk_fail(pk, "%s: %d sizes but %d strides", fn, ndim, n_stride);
	if (grad->kind != PK_BOOL)
		return pk_fail(pk, "%s: requires_grad is %s, not a bool", fn, tio_pk_kind_name(grad->kind));
	if (hooks->kind != PK_DICT)
		return pk_fail(pk, "%s: backward hooks are %s, not a dict", fn, tio_pk_kind_name(hooks->kind));
	if (argc == fixed + 1 && tio_pk_item(pk, args, fixed)->kind != PK_DICT)
		return pk_fail(pk, "%s: the metadata is not a dict", fn);
	/* at most 2 * 64 numbers a view, and views are bounded: no overflow */
	ALLOC_GROW(pk->dims, pk->ndims + 2 * (size_t)ndim, pk->dims_alloc);
	if (ndim) {
		memcpy(pk->dims + pk->ndims, shape, sizeof(*shape) * (size_t)ndim);
		memcpy(pk->dims + pk->ndims + ndim, stride, sizeof(*stride) * (size_t)ndim);
	}
	view->ndim = ndim;
	view->dims = pk->ndims;
	pk->ndims += 2 * (size_t)ndim;
	t.u.tensor.view = (uint32_t)pk->nviews++;
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
	data = tio_pk_item(pk, args, 0), grad = tio_pk_item(pk, args, 1);
	if (data->kind != PK_TENSOR)
		return pk_fail(pk, "a Parameter of %s, not a tensor", tio_pk_kind_name(data->kind));
	if (grad->kind != PK_BOOL)
		return pk_fail(pk, "a Parameter's requires_grad is %s, not a bool", tio_pk_kind_name(grad->kind));
	if (tio_pk_item(pk, args, 2)->kind != PK_DICT)
		return pk_fail(pk, "a Parameter's backward hooks are not a dict");
	t = *data;
	t.u.tensor.requires_grad = grad->u.i != 0;
	return pk_new(pk, &t, result);
}

static int pk_call(struct pickle *pk, uint32_t fn_idx, uint32_t args_idx, uint32_t *result, bool nested);

/* _rebuild_from_type_v2(func, Tensor or Parameter, args, state): torch 2.x, for tensors with Python attributes */
static int pk_rebuild_from_type(struct pickle *pk, const struct pk_value *args, uint32_t *result, bool nested)
{
	const struct pk_value *cls, *inner;
	if (nested)
		return pk_fail(pk, "_rebuild_from_type_v2 inside _rebuild_from_type_v2");
	if (args->u.tuple.n != 4)
		return pk_fail(pk, "_rebuild_from_type_v2 takes 4 arguments, not %u", args->u.tuple.n);
	cls = tio_pk_item(pk, args, 1), inner = tio_pk_item(pk, args, 2);
	if (cls->kind != PK_GLOBAL || (cls->u.global.g != G_TENSOR_CLASS && cls->u.global.g != G_PARAMETER_CLASS))
		return pk_fail(pk, "_rebuild_from_type_v2 of a type other than Tensor or Parameter");
	if (inner->kind != PK_TUPLE)
		return pk_fail(pk, "_rebuild_from_type_v2: the arguments are %s, not a tuple",
			       tio_pk_kind_name(inner->kind));
	return pk_call(pk, pk->items[args->u.tuple.first], pk->items[args->u.tuple.first + 2], result, true);
}

/* An inert object: what a global the machine does not make built (checkpoints only). */
static int pk_object(struct pickle *pk, uint32_t cls, uint32_t args, uint32_t *result)
{
	struct pk_value o = { .kind = PK_OBJECT };
	o.u.object.cls = cls;
	o.u.object.args = args;
	o.u.object.state = PK_NOREF;
	o.u.object.items = PK_NOREF;
	return pk_new(pk, &o, result);
}

/* REDUCE: fn(*args), for the callables of the closed set; other globals make inert objects. */
static int pk_call(struct pickle *pk, uint32_t fn_idx, uint32_t args_idx, uint32_t *result, bool nested)
{
	const struct pk_value *fn = tio_pk_val(pk, fn_idx), *args = tio_pk_val(pk, args_idx);
	if (args->kind != PK_TUPLE)
		return pk_fail(pk, "call arguments are %s, not a tuple", tio_pk_kind_name(args->kind));
	if (fn->kind != PK_GLOBAL)
		return pk_fail(pk, "call of %s", tio_pk_kind_name(fn->kind));
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
		d.u.coll.head = d.u.coll.tail = PK_NOREF;
		return pk_new(pk, &d, result);
	}
	case G_OTHER:
		return pk_object(pk, fn_idx, args_idx, result);
	default:
		return pk_fail(pk, "a call of something that is not a tensor rebuild function");
	}
}

static int pk_reduce(struct pickle *pk, bool newobj)
{
	uint32_t fn = 0, args = 0, result = 0;
	const struct pk_value *c;
	if (pk_pop(pk, &args) || pk_pop(pk, &fn))
		return -1;
	c = tio_pk_val(pk, fn);
	if (newobj && !(c->kind == PK_GLOBAL && c->u.global.g == G_ORDERED_DICT)) {
		/* cls.__new__(cls, *args): OrderedDict, or an object of a class kept as a name */
		if (c->kind != PK_GLOBAL || c->u.global.g != G_OTHER)
			return pk_fail(pk, "NEWOBJ of something other than OrderedDict");
		if (tio_pk_val(pk, args)->kind != PK_TUPLE)
			return pk_fail(pk, "NEWOBJ arguments are %s, not a tuple", tio_pk_kind_name(tio_pk_val(pk, args)->kind));
		return pk_object(pk, fn, args, &result) ? -1 : pk_push(pk, result);
	}
	if (pk_call(pk, fn, args, &result, false))
		return -1;
	return pk_push(pk, result);
}

/* NEWOBJ_EX: cls.__new__(cls, *args, **kwargs), of a class kept as a name (checkpoints only). */
static int pk_newobj_ex(struct pickle *pk)
{
	uint32_t cls = 0, args = 0, kwargs = 0, result = 0;
	const struct pk_value *c;
	if (pk_pop(pk, &kwargs) || pk_pop(pk, &args) || pk_pop(pk, &cls))
		return -1;
	c = tio_pk_val(pk, cls);
	if (c->kind != PK_GLOBAL || c->u.global.g != G_OTHER)
		return pk_fail(pk, "NEWOBJ_EX of %s", c->kind == PK_GLOBAL ? "a torch class" : tio_pk_kind_name(c->kind));
	return pk_object(pk, cls, args, &result) ? -1 : pk_push(pk, result);
}

/* An empty list, dict or set. */
static int pk_push_coll(struct pickle *pk, enum pk_kind kind)
{
	struct pk_value v = { .kind = kind };
	v.u.coll.head = v.u.coll.tail = PK_NOREF;
	return pk_push_new(pk, &v);
}

/* Entry (key, value) appended to the collection value c. */
static int pk_link(struct pickle *pk, uint32_t c, uint32_t key, uint32_t value)
{
	struct pk_value *t;
	if (pk->nlinks >= pk->lim->items)
		return pk_fail(pk, "more than %zu list and dict entries: %s", pk->lim->items, pk->lim->what);
	ALLOC_GROW(pk->links, pk->nlinks + 1, pk->links_alloc);
	pk->links[pk->nlinks] = (struct pk_link){ key, value, PK_NOREF };
	t = tio_pk_val(pk, c);
	if (t->u.coll.tail == PK_NOREF)
		t->u.coll.head = (uint32_t)pk->nlinks;
	else
		pk->links[t->u.coll.tail].next = (uint32_t)pk->nlinks;
	t->u.coll.tail = (uint32_t)pk->nlinks++;
	t->u.coll.count++;
	return 0;
}

/*
 * The collection that APPEND(S), SETITEM(S) or ADDITEMS fill at stack[from - 1]: a
 * list, dict or set, or an object of a list, dict or set subclass (its items).
 */
static int pk_target(struct pickle *pk, size_t from, enum pk_kind kind, uint32_t *c)
{
	uint32_t t;
	struct pk_value *v;
	if (from == 0 || from <= pk_floor(pk))
		return pk_fail(pk, "stack underflow");
	t = pk->stack[from - 1];
	v = tio_pk_val(pk, t);
	if (v->kind == PK_OBJECT) {
		if (v->u.object.items == PK_NOREF) {
			struct pk_value d = { .kind = kind };
			uint32_t idx;
			d.u.coll.head = d.u.coll.tail = PK_NOREF;
			if (pk_new(pk, &d, &idx))
				return -1;
			v = tio_pk_val(pk, t); /* values may have moved */
			v->u.object.items = idx;
		}
		t = v->u.object.items;
		v = tio_pk_val(pk, t);
	}
	if (v->kind != kind)
		return pk_fail(pk, "adding items to %s, not %s", tio_pk_kind_name(v->kind), tio_pk_kind_name(kind));
	*c = t;
	return 0;
}

/* APPEND(S), SETITEM(S), ADDITEMS: the entries at stack[from ...] into the collection below them. */
static int pk_add_items(struct pickle *pk, enum pk_kind kind, size_t from, size_t per_item)
{
	size_t n = pk->depth - from;
	uint32_t c = 0;
	if (pk_target(pk, from, kind, &c))
		return -1;
	if (n % per_item)
		return pk_fail(pk, "odd number of stack items for SETITEMS");
	for (size_t i = from; i < pk->depth; i += per_item)
		if (pk_link(pk, c, per_item == 2 ? pk->stack[i] : PK_NOREF, pk->stack[i + per_item - 1]))
			return -1;
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

/* BINUNICODE and its kin (and, as PK_BYTES, BINBYTES, BINSTRING and BYTEARRAY8): a length, then the bytes. */
static int pk_string(struct pickle *pk, size_t len_bytes, enum pk_kind kind)
{
	const unsigned char *p = NULL;
	uint64_t n;
	struct pk_value v = { .kind = kind };
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
		return pk_fail(pk, "STACK_GLOBAL of %s and %s, not two strings", tio_pk_kind_name(m->kind),
			       tio_pk_kind_name(n->kind));
	return pk_global(pk, m->u.str.s, m->u.str.len, n->u.str.s, n->u.str.len);
}

static int pk_build(struct pickle *pk)
{
	uint32_t state = 0, target = 0;
	struct pk_value *t;
	if (pk_pop(pk, &state) || pk_top(pk, &target))
		return -1;
	t = tio_pk_val(pk, target);
	/* an object (argparse.Namespace: its attributes) keeps its state */
	if (t->kind == PK_OBJECT) {
		t->u.object.state = state;
		return 0;
	}
	/* an OrderedDict with instance attributes; nothing else of torch's takes a state */
	if (t->kind != PK_DICT)
		return pk_fail(pk, "BUILD of %s", tio_pk_kind_name(t->kind));
	return 0;
}

/* LIST, DICT, FROZENSET: the items above the mark (keys and values for a dict) as a new collection. */
static int pk_collect(struct pickle *pk, enum pk_kind kind, size_t per_item)
{
	size_t from = 0;
	uint32_t idx = 0;
	struct pk_value v = { .kind = kind };
	if (pk_pop_mark(pk, &from))
		return -1;
	if ((pk->depth - from) % per_item)
		return pk_fail(pk, "odd number of stack items for DICT");
	v.u.coll.head = v.u.coll.tail = PK_NOREF;
	if (pk_new(pk, &v, &idx))
		return -1;
	for (size_t i = from; i < pk->depth; i += per_item)
		if (pk_link(pk, idx, per_item == 2 ? pk->stack[i] : PK_NOREF, pk->stack[i + per_item - 1]))
			return -1;
	pk->depth = from;
	return pk_push(pk, idx);
}

/* The opcodes of protocol 2 and later that only checkpoints use (pickled by Python, not by torch's tensor code). */
static int pk_step_ckpt(struct pickle *pk, unsigned op)
{
	uint32_t a = 0;
	size_t from = 0;
	switch (op) {
	case 'B': /* BINBYTES */
		return pk_string(pk, 4, PK_BYTES);
	case 'C': /* SHORT_BINBYTES */
		return pk_string(pk, 1, PK_BYTES);
	case 0x8e: /* BINBYTES8 */
	case 0x96: /* BYTEARRAY8 */
		return pk_string(pk, 8, PK_BYTES);
	case 'T': /* BINSTRING */
		return pk_string(pk, 4, PK_BYTES);
	case 'U': /* SHORT_BINSTRING */
		return pk_string(pk, 1, PK_BYTES);
	case 'l': /* LIST */
		return pk_collect(pk, PK_LIST, 1);
	case 'd': /* DICT */
		return pk_collect(pk, PK_DICT, 2);
	case 0x8f: /* EMPTY_SET */
		return pk_push_coll(pk, PK_SET);
	case 0x90: /* ADDITEMS */
		return pk_pop_mark(pk, &from) ? -1 : pk_add_items(pk, PK_SET, from, 1);
	case 0x91: /* FROZENSET */
		return pk_collect(pk, PK_SET, 1);
	case 0x92: /* NEWOBJ_EX */
		return pk_newobj_ex(pk);
	case '0': /* POP */
		return pk_pop(pk, &a);
	case '1': /* POP_MARK */
		if (pk_pop_mark(pk, &from))
			return -1;
		pk->depth = from;
		return 0;
	case '2': /* DUP */
		return pk_top(pk, &a) ? -1 : pk_push(pk, a);
	default:
		return pk_fail(pk, "unknown pickle opcode 0x%02x", op);
	}
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
		return pk_mark(pk);
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
		return pk_push_coll(pk, PK_LIST);
	case '}': /* EMPTY_DICT */
		return pk_push_coll(pk, PK_DICT);
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
		return pk_string(pk, 4, PK_STR);
	case 0x8c: /* SHORT_BINUNICODE */
		return pk_string(pk, 1, PK_STR);
	case 0x8d: /* BINUNICODE8 */
		return pk_string(pk, 8, PK_STR);
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
		if (pk->lim->any_global)
			return pk_step_ckpt(pk, op);
		return pk_fail(pk, "unknown pickle opcode 0x%02x", op);
	}
}

int tio_pk_run(struct pickle *pk)
{
	int r;
	if (!pk->lim)
		pk->lim = &pk_limits_tensor;
	while (!(r = pk_step(pk)))
		;
	if (r < 0)
		return -1;
	if (pk->nmarks)
		return pk_fail(pk, "STOP with a MARK still open");
	if (pk->depth != 1)
		return pk_fail(pk, "STOP with %zu objects on the stack, not one %s", pk->depth,
			       pk->lim->any_global ? "object" : "tensor");
	pk->root = pk->stack[0];
	return 0;
}

/* Run data.pkl to its STOP; the result must be one tensor. */
int tio_pk_run_tensor(struct pickle *pk, const struct pk_value **tensor)
{
	const struct pk_value *v;
	if (tio_pk_run(pk))
		return -1;
	v = tio_pk_val(pk, pk->root);
	if (v->kind != PK_TENSOR)
		return pk_fail(pk, "the pickle holds %s, not a tensor", tio_pk_kind_name(v->kind));
	*tensor = v;
	return 0;
}

void tio_pk_release(struct pickle *pk)
{
	free(pk->values);
	free(pk->items);
	free(pk->links);
	free(pk->stack);
	free(pk->marks);
	free(pk->memo);
	free(pk->views);
	free(pk->dims);
}

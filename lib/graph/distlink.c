/*
 * distlink.c: msprobe's matched_distributed, the links between the
 * communication nodes of the ranks of one step (msprobe 26.0.0's
 * DistributedAnalyzer, run on the vis.db's rows of each data source and
 * step; see graphmodel.h's graph_link_ranks()).
 *
 * The facts, from msprobe's rows (nodes whose name starts with
 * "Distributed", their input_data as the vis.db holds it, every value a
 * string):
 *   - point to point (send, isend: dst; recv, irecv: src): the peer is the
 *     value of the leaf NODE.input.dst or NODE.input.src; the node's key is
 *     api + "rank" + peer, numbered by its calls ("_1", "_2", ...) on its
 *     rank.  The partner is the node of the peer rank whose key is this one
 *     with the peer made this rank and the api made its counterpart
 *     (send <-> recv, isend <-> irecv), and whose own src or dst names this
 *     rank; both get {"communications_type": send | receive, "nodes_info":
 *     {peer: [the peer's index, the peer's node]}}.
 *   - collectives: the key is the group's group_id + api, numbered the
 *     same way; group_ranks (NODE.input.group) lists the peers; a peer's
 *     node of the same key and group_id joins nodes_info.  broadcast
 *     (source: input 1), scatter (src), gather (dst) and reduce (input 1)
 *     are linked from their source only (send for broadcast and scatter,
 *     receive for gather and reduce), and each peer gets the reverse link
 *     back; every other collective is send_receive, each node listing its
 *     peers.
 *   - the index is the peer's precision index ("0", "0.5", "1"), or its
 *     overflow level with -oc; "Nan" when it has none.
 *   - batch_isend_irecv nodes are never linked: msprobe reads their peers
 *     from information its vis.db rows do not carry.
 */
#include "../core/compat.h"

#include "graphmodel.h"
#include "../core/xalloc.h"
#include "../json/jsonw.h"
#include "../msprobe/pyval.h"

/* One communication node of one rank. */
struct cnode {
	struct gjudge *j;
	const struct hier_node *n;
	double precision;
	const char *overflow;
	const char *api;            /* its second dotted part */
	size_t api_len;
	const struct pyval *input;  /* its input_data */
	char *key;                  /* its unique group key, or NULL */
	char *link;                 /* the matched_distributed built */
};

struct crank {
	int64_t rank;
	struct cnode *nodes;
	size_t n, alloc;
	struct strmap by_key; /* unique key -> node index + 1 */
};

struct config {
	const char *api, *peer_api, *param, *type;
	bool p2p;
};

static const struct config configs[] = {
	{ "send", "recv", "dst", "send", true },
	{ "isend", "irecv", "dst", "send", true },
	{ "recv", "send", "src", "receive", true },
	{ "irecv", "isend", "src", "receive", true },
	{ "broadcast", "broadcast", "1", "send", false },
	{ "scatter", "scatter", "src", "send", false },
	{ "gather", "gather", "dst", "receive", false },
	{ "reduce", "reduce", "1", "receive", false },
};

static const struct config *config_of(const struct cnode *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(configs); i++)
		if (strlen(configs[i].api) == c->api_len && !memcmp(configs[i].api, c->api, c->api_len))
			return &configs[i];
	return NULL;
}

static const struct pyval *dict_get(const struct pyval *d, const char *key, size_t len)
{
	if (!d || d->kind != PY_DICT)
		return NULL;
	for (size_t i = 0; i < d->n; i++) {
		const struct pyval *k = d->items[2 * i];
		if (k->kind == PY_STR && k->len == len && !memcmp(k->text, key, len))
			return d->items[2 * i + 1];
	}
	return NULL;
}

/* The string field `field` of the leaf NODE.input.PARAM, or NULL. */
static const char *leaf_field(const struct cnode *c, const char *param, const char *field, struct strbuf *tmp)
{
	const struct pyval *leaf, *v;
	strbuf_reset(tmp);
	strbuf_add(tmp, c->n->name, c->n->name_len);
	strbuf_addf(tmp, ".input.%s", param);
	leaf = dict_get(c->input, tmp->buf, tmp->len);
	v = dict_get(leaf, field, strlen(field));
	return v && v->kind == PY_STR ? v->text : NULL;
}

/* group_ranks as a list of ranks (msprobe's json.loads of the text); false when it is not one. */
static bool group_ranks(const struct cnode *c, int64_t **out, size_t *n, struct strbuf *tmp, struct arena *a)
{
	const char *text = leaf_field(c, "group", "group_ranks", tmp);
	const struct pyval *v;
	*n = 0;
	if (!text || !(v = pyval_from_text(text, strlen(text), 0, a)) || v->kind != PY_LIST || !v->n)
		return false;
	*out = arena_alloc(a, v->n * sizeof(**out));
	for (size_t i = 0; i < v->n; i++) {
		if (v->items[i]->kind != PY_INT)
			return false;
		(*out)[(*n)++] = (int64_t)pyval_float(v->items[i]);
	}
	return true;
}

static struct crank *rank_by_number(struct crank *ranks, size_t n, int64_t r)
{
	for (size_t i = 0; i < n; i++)
		if (ranks[i].rank == r)
			return &ranks[i];
	return NULL;
}

/* The rank a value's text names ("1"), or NULL. */
static struct crank *rank_of(struct crank *ranks, size_t n, const char *text)
{
	char *end;
	long long r;
	if (!text || !*text)
		return NULL;
	r = strtoll(text, &end, 10);
	return *end ? NULL : rank_by_number(ranks, n, r);
}

/* _make_group_node_mapping for one rank. */
static void key_nodes(struct crank *cr, struct strbuf *tmp)
{
	struct strmap counts = STRMAP_INIT;
	struct strbuf key = STRBUF_INIT;
	for (size_t i = 0; i < cr->n; i++) {
		struct cnode *c = &cr->nodes[i];
		const struct config *cf = config_of(c);
		struct strmap_slot *slot;
		strbuf_reset(&key);
		if (c->api_len == 17 && !memcmp(c->api, "batch_isend_irecv", 17))
			continue;
		if (cf && cf->p2p) {
			const char *peer = leaf_field(c, cf->param, "value", tmp);
			if (!peer)
				continue;
			strbuf_add(&key, c->api, c->api_len);
			strbuf_addf(&key, "rank%s", peer);
		} else {
			const char *gid = leaf_field(c, "group", "group_id", tmp);
			if (!gid || !*gid)
				continue;
			strbuf_addstr(&key, gid);
			strbuf_add(&key, c->api, c->api_len);
		}
		slot = strmap_put(&counts, key.buf, key.len, NULL);
		slot->value.u++;
		strbuf_addf(&key, "_%llu", (unsigned long long)slot->value.u);
		c->key = xmemdupz(key.buf, key.len);
		strmap_put(&cr->by_key, key.buf, key.len, NULL)->value.u = i + 1;
	}
	strmap_release(&counts);
	strbuf_release(&key);
}

/* Python's str.replace, every occurrence, in place. */
static void replace_all(struct strbuf *s, const char *from, const char *to)
{
	struct strbuf out = STRBUF_INIT;
	strbuf_add_replacing(&out, s->buf, s->len, from, to);
	strbuf_reset(s);
	strbuf_addbuf(s, &out);
	strbuf_release(&out);
}

static struct cnode *target_node(struct crank *peer, const char *key)
{
	struct strmap_slot *s = key ? strmap_find(&peer->by_key, key, strlen(key)) : NULL;
	return s ? &peer->nodes[s->value.u - 1] : NULL;
}

static void add_index(struct strbuf *out, const struct cnode *c, bool overflow)
{
	if (overflow)
		jsonw_str(out, c->overflow ? c->overflow : "Nan");
	else if (c->precision < 0)
		jsonw_str(out, "Nan");
	else
		jsonw_str(out, c->precision == 0.5 ? "0.5" : c->precision >= 1 ? "1" : "0");
}

static void set_link(struct cnode *c, const char *type, int64_t peer_rank, const struct cnode *peer, bool overflow)
{
	struct strbuf s = STRBUF_INIT;
	strbuf_addstr(&s, "{\"communications_type\": ");
	jsonw_str(&s, type);
	strbuf_addf(&s, ", \"nodes_info\": {\"%lld\": [", (long long)peer_rank);
	add_index(&s, peer, overflow);
	strbuf_addstr(&s, ", ");
	jsonw_string(&s, peer->n->name, peer->n->name_len);
	strbuf_addstr(&s, "]}}");
	free(c->link);
	c->link = strbuf_detach(&s, NULL);
}

static const char *reverse(const char *type)
{
	return !strcmp(type, "send") ? "receive" : !strcmp(type, "receive") ? "send" : type;
}

static void p2p_match(struct crank *ranks, size_t nranks, struct crank *cr, struct cnode *c, const struct config *cf,
		      bool overflow, struct strbuf *tmp)
{
	const char *peer_text = leaf_field(c, cf->param, "value", tmp);
	struct crank *peer = rank_of(ranks, nranks, peer_text);
	const struct config *pcf;
	struct strbuf key = STRBUF_INIT, from = STRBUF_INIT, to = STRBUF_INIT;
	struct cnode *t;
	const char *back;
	if (!peer || !c->key)
		goto out;
	strbuf_addstr(&key, c->key);
	strbuf_addf(&from, "rank%lld", (long long)peer->rank);
	strbuf_addf(&to, "rank%lld", (long long)cr->rank);
	replace_all(&key, from.buf, to.buf);
	replace_all(&key, cf->api, cf->peer_api);
	if (!(t = target_node(peer, key.buf)))
		goto out;
	pcf = config_of(t);
	back = pcf ? leaf_field(t, pcf->param, "value", tmp) : NULL;
	if (!back || rank_of(ranks, nranks, back) != cr)
		goto out;
	set_link(c, cf->type, peer->rank, t, overflow);
	set_link(t, pcf->type, cr->rank, c, overflow);
out:
	strbuf_release(&key);
	strbuf_release(&from);
	strbuf_release(&to);
}

static void collective_match(struct crank *ranks, size_t nranks, struct crank *cr, struct cnode *c,
			     const struct config *cf, bool overflow, struct strbuf *tmp, struct arena *a)
{
	const char *type = "send_receive", *gid;
	int64_t *members;
	size_t nm, linked = 0;
	struct strbuf s = STRBUF_INIT;
	char *group_id;
	if (cf) {
		const char *src = leaf_field(c, cf->param, "value", tmp);
		if (!src || rank_of(ranks, nranks, src) != cr)
			return;
		type = cf->type;
	}
	gid = leaf_field(c, "group", "group_id", tmp);
	if (!gid || !*gid || !c->key)
		return;
	group_id = xstrdup(gid);
	if (!group_ranks(c, &members, &nm, tmp, a)) {
		free(group_id);
		return;
	}
	strbuf_addstr(&s, "{\"communications_type\": ");
	jsonw_str(&s, type);
	strbuf_addstr(&s, ", \"nodes_info\": {");
	for (size_t k = 0; k < nm; k++) {
		struct crank *peer;
		struct cnode *t;
		const char *tg;
		if (members[k] == cr->rank || !(peer = rank_by_number(ranks, nranks, members[k])))
			continue;
		if (!(t = target_node(peer, c->key)))
			continue;
		tg = leaf_field(t, "group", "group_id", tmp);
		if (!tg || !*tg || strcmp(tg, group_id))
			continue;
		strbuf_addf(&s, "%s\"%lld\": [", linked ? ", " : "", (long long)members[k]);
		add_index(&s, t, overflow);
		strbuf_addstr(&s, ", ");
		jsonw_string(&s, t->n->name, t->n->name_len);
		strbuf_addch(&s, ']');
		linked++;
		if (cf)
			set_link(t, reverse(cf->type), cr->rank, c, overflow);
	}
	strbuf_addstr(&s, "}}");
	if (linked) {
		free(c->link);
		c->link = strbuf_detach(&s, NULL);
	}
	strbuf_release(&s);
	free(group_id);
}

/* The links of one data source and step: runs[] are its runs (one per rank). */
static void link_step(struct grun **runs, size_t n, bool golden, bool overflow)
{
	struct crank *ranks = xcalloc(n + 1, sizeof(*ranks));
	struct arena a = ARENA_INIT;
	struct strbuf tmp = STRBUF_INIT, in = STRBUF_INIT, out = STRBUF_INIT;
	for (size_t k = 0; k < n; k++) {
		struct grun *r = runs[k];
		const struct hier *h = golden ? &r->gh : &r->th;
		struct gjudge *j = golden ? r->gj : r->tj;
		struct crank *cr = &ranks[k];
		cr->rank = r->db_rank;
		for (size_t s = 0; s < h->nsorted; s++) {
			uint32_t i = h->sorted[s];
			const struct hier_node *nd = &h->nodes[i];
			const char *dot = memchr(nd->name, '.', nd->name_len), *end;
			struct cnode *c;
			if (nd->name_len < 11 || memcmp(nd->name, "Distributed", 11) || !dot)
				continue;
			end = memchr(dot + 1, '.', nd->name_len - (size_t)(dot + 1 - nd->name));
			ALLOC_GROW(cr->nodes, cr->n + 1, cr->alloc);
			c = &cr->nodes[cr->n++];
			memset(c, 0, sizeof(*c));
			c->j = &j[i];
			c->n = nd;
			c->precision = j[i].precision;
			c->overflow = j[i].overflow;
			c->api = dot + 1;
			c->api_len = end ? (size_t)(end - dot - 1) : nd->name_len - (size_t)(dot + 1 - nd->name);
			strbuf_reset(&in);
			strbuf_reset(&out);
			graph_node_data(r, golden, i, &in, &out);
			c->input = pyval_from_text(in.buf, in.len, 0, &a);
		}
		key_nodes(cr, &tmp);
	}
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ranks[k].n; i++) {
			struct cnode *c = &ranks[k].nodes[i];
			const struct config *cf;
			if (c->link || (c->api_len == 17 && !memcmp(c->api, "batch_isend_irecv", 17)))
				continue;
			cf = config_of(c);
			if (cf && cf->p2p)
				p2p_match(ranks, n, &ranks[k], c, cf, overflow, &tmp);
			else
				collective_match(ranks, n, &ranks[k], c, cf, overflow, &tmp, &a);
		}
	for (size_t k = 0; k < n; k++) {
		for (size_t i = 0; i < ranks[k].n; i++) {
			struct cnode *c = &ranks[k].nodes[i];
			if (c->link) {
				free(c->j->distributed);
				c->j->distributed = c->link;
			}
			free(c->key);
		}
		free(ranks[k].nodes);
		strmap_release(&ranks[k].by_key);
	}
	free(ranks);
	arena_release(&a);
	strbuf_release(&tmp);
	strbuf_release(&in);
	strbuf_release(&out);
}

void graph_link_ranks(struct graph_set *g)
{
	struct grun **step = xcalloc(g->n + 1, sizeof(*step));
	for (int golden = 0; golden < 2; golden++)
		for (size_t i = 0; i < g->n;) {
			size_t n = 0, k = i;
			for (; k < g->n && g->runs[k].db_step == g->runs[i].db_step; k++)
				if (!golden || g->runs[k].gdump)
					step[n++] = &g->runs[k];
			link_step(step, n, golden, g->overflow);
			i = k;
		}
	free(step);
}

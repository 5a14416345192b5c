#include "attach.h"
#include "../json/recscan.h"
#include "../dumps/construct.h"
#include "../json/jsonw.h"
#include "../records/leafrec.h"
#include "../core/msg.h"
#include "../msprobe/naming.h"
#include "../records/pair.h"
#include "../dumps/stack.h"
#include "../core/strmap.h"
#include "../core/textesc.h"
#include "../core/xalloc.h"

#include <fcntl.h>
#include <unistd.h>

/* What one dump's files give (either may be NULL: missing). */
struct sources {
	struct stack_map *stacks;
	struct construct_map *construct;
};

struct attacher {
	struct attach_options opts;
	struct strmap by_dump;     /* dump path -> struct sources * */
	struct sources given;      /* the explicit files, when both are given */
	struct strbuf scratch, name, extra;
};

struct attacher *attach_new(const struct attach_options *opts)
{
	struct attacher *a = xcalloc(1, sizeof(*a));
	a->opts = *opts;
	strbuf_init(&a->scratch, 0);
	strbuf_init(&a->name, 0);
	strbuf_init(&a->extra, 0);
	return a;
}

static void sources_free(struct sources *s)
{
	stack_map_free(s->stacks);
	construct_free(s->construct);
}

void attach_free(struct attacher *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->by_dump.cap; i++)
		if (a->by_dump.slots[i].hash) {
			sources_free(a->by_dump.slots[i].value.p);
			free(a->by_dump.slots[i].value.p);
		}
	strmap_release(&a->by_dump);
	strbuf_release(&a->scratch);
	strbuf_release(&a->name);
	strbuf_release(&a->extra);
	free(a);
}

/* The file beside a dump, or the given one. */
static void beside(struct strbuf *out, const char *dump, const char *given, const char *name)
{
	const char *slash = strrchr(dump, '/');
	strbuf_reset(out);
	if (given) {
		strbuf_addstr(out, given);
		return;
	}
	if (slash)
		strbuf_add(out, dump, (size_t)(slash - dump) + 1);
	strbuf_addstr(out, name);
}

/*
 * 1: it can be read; 0: there is none; -1: it is there but cannot be read (err says why).
 * Opened without blocking: a FIFO there must not wait for a writer (the loader refuses it).
 */
static int readable(const char *path, struct strbuf *err)
{
	int fd;
	do {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	} while (fd < 0 && errno == EINTR);
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	if (errno == ENOENT)
		return 0;
	strbuf_addf(err, "%s: cannot open: %s", path, strerror(errno));
	return -1;
}

/* The stack and construct maps of a dump, loaded on first use; -1 on a malformed file. */
static int sources_of(struct attacher *a, const char *dump, struct sources **out, struct strbuf *err)
{
	bool created;
	struct strmap_slot *slot = strmap_put(&a->by_dump, dump, strlen(dump), &created);
	struct strbuf path = STRBUF_INIT;
	struct sources *s;
	int ret = 0;

	if (!created) {
		*out = slot->value.p;
		return 0;
	}
	s = slot->value.p = xcalloc(1, sizeof(*s));
	*out = s;
	if (strcmp(dump, "-") || a->opts.stack_file) {
		beside(&path, dump, a->opts.stack_file, "stack.json");
		int r = readable(path.buf, err);
		if (r > 0)
			s->stacks = stack_map_load(path.buf, err);
		else if (!r)
			warning("%s: no stack file; records of %s pass without stacks", path.buf, dump);
		if (r < 0 || (r > 0 && !s->stacks))
			ret = -1;
	}
	if (!ret && (strcmp(dump, "-") || a->opts.construct_file)) {
		beside(&path, dump, a->opts.construct_file, "construct.json");
		int r = readable(path.buf, err);
		if (r > 0)
			s->construct = construct_load(path.buf, err);
		else if (!r)
			warning("%s: no construct file; records of %s pass without module chains", path.buf, dump);
		if (r < 0 || (r > 0 && !s->construct))
			ret = -1;
	}
	strbuf_release(&path);
	return ret;
}

/* ---- what a leaf gets ----------------------------------------------------------- */

static void add_where(struct strbuf *out, const struct frame *f)
{
	strbuf_addstr(out, ",\"where\":{\"file\":");
	jsonw_string(out, f->file, f->file_len);
	strbuf_addf(out, ",\"line\":%ld,\"function\":", f->line);
	jsonw_string(out, f->function ? f->function : "", f->function_len);
	strbuf_addstr(out, ",\"code\":");
	jsonw_string(out, f->code ? f->code : "", f->code_len);
	strbuf_addch(out, '}');
}

static void add_stack(struct attacher *a, struct strbuf *out, const struct stack *s)
{
	size_t kept = 0;
	bool where = false;
	strbuf_addstr(out, ",\"stack\":[");
	for (size_t i = 0; i < s->n; i++) {
		struct frame f;
		bool parsed = stack_frame_parse(s->frames[i], &f);
		bool framework = parsed && stack_frame_is_framework(&f, a->opts.framework, a->opts.nframework);
		if (a->opts.user_frames && framework)
			continue;
		if (a->opts.innermost && kept >= a->opts.innermost)
			continue;
		if (kept++)
			strbuf_addch(out, ',');
		jsonw_str(out, s->frames[i]);
	}
	strbuf_addch(out, ']');
	for (size_t i = 0; i < s->n && !where; i++) {
		struct frame f;
		if (stack_frame_parse(s->frames[i], &f) &&
		    !stack_frame_is_framework(&f, a->opts.framework, a->opts.nframework)) {
			add_where(out, &f);
			where = true;
		}
	}
}

/* The fields to append to a leaf of (dump, entry), into out (each starting with ','). */
static int attachments(struct attacher *a, const char *dump, const char *entry, struct strbuf *out,
		       struct strbuf *err)
{
	struct sources *src;
	struct strbuf fwd = STRBUF_INIT;
	bool has_fwd = naming_forward_entry(entry, &fwd);
	if (sources_of(a, dump, &src, err) < 0) {
		strbuf_release(&fwd);
		return -1;
	}
	if (src->stacks) {
		const struct stack *s = stack_map_get(src->stacks, entry, strlen(entry));
		if (!s && has_fwd && (s = stack_map_get(src->stacks, fwd.buf, fwd.len))) {
			add_stack(a, out, s);
			strbuf_addstr(out, ",\"stack_from\":");
			jsonw_str(out, fwd.buf);
		} else if (s) {
			add_stack(a, out, s);
		}
	}
	if (src->construct) {
		const struct construct_node *n = construct_get(src->construct, entry, strlen(entry));
		const char *from = NULL;
		if (!n && has_fwd && (n = construct_get(src->construct, fwd.buf, fwd.len)))
			from = fwd.buf;
		if (n) {
			strbuf_addstr(out, ",\"modules\":");
			construct_chain_json(src->construct, from ? from : entry, strlen(from ? from : entry), out);
			if (from) {
				strbuf_addstr(out, ",\"modules_from\":");
				jsonw_str(out, from);
			}
			if (n->micro_step >= 0)
				strbuf_addf(out, ",\"micro_step\":%lld", (long long)n->micro_step);
		}
	}
	strbuf_release(&fwd);
	return 0;
}

/* ---- records --------------------------------------------------------------------- */

/* The leaf of a record that gets the attachments: the record itself, or its t (or g). NULL: none. */
static const struct leafrec *target_leaf(struct attacher *a, const char *line, size_t len, struct leafrec *leaf,
					 struct pair *p)
{
	const char *why;
	struct strbuf err = STRBUF_INIT;
	bool is_pair = pair_parse(p, line, len, &err) == 0;
	strbuf_release(&err);
	if (is_pair) {
		if (a->opts.golden ? p->has_g : p->has_t)
			return a->opts.golden ? &p->g : &p->t;
		return NULL;
	}
	if (leafrec_parse(leaf, line, len, &why) == 0)
		return leaf;
	return NULL;
}

/* A record that is neither a pair nor a leaf passes through, if it is a JSON object at all. */
static int check_object(const char *line, size_t len, struct strbuf *err)
{
	struct rs_iter it;
	struct span key, value;
	int got;
	if (rs_begin(&it, line, len) < 0) {
		strbuf_addstr(err, "not a JSON object");
		return PROBE_ERR_LINE;
	}
	while ((got = rs_next(&it, &key, &value)) == 1)
		;
	if (got < 0) {
		strbuf_addf(err, "not a JSON object: %s (at byte %zu)", it.error ? it.error : "malformed",
			    it.error_at + 1);
		return PROBE_ERR_LINE;
	}
	return 0;
}

int attach_record(struct attacher *a, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	struct leafrec leaf;
	struct pair p;
	const struct leafrec *r = target_leaf(a, line, len, &leaf, &p);
	size_t close;

	if (!r && check_object(line, len, err) < 0)
		return PROBE_ERR_LINE;
	if (!r || r->f[LF_STACK].kind != SPAN_NONE || r->f[LF_DUMP].kind != SPAN_STRING) {
		/* nothing to attach to, already attached, or no dump to find the files by */
		strbuf_add(out, line, len);
		strbuf_addch(out, '\n');
		return 0;
	}
	leafrec_str(r, LF_DUMP, &a->scratch);
	leafrec_str(r, LF_ENTRY, &a->name);
	strbuf_reset(&a->extra);
	if (attachments(a, a->scratch.buf, a->name.buf, &a->extra, err) < 0)
		return PROBE_ERR; /* nothing of this record written: err names the stack or construct file */
	close = (size_t)(r->text + r->len - 1 - line); /* the leaf's closing brace */
	strbuf_add(out, line, close);
	strbuf_addbuf(out, &a->extra);
	strbuf_add(out, line + close, len - close);
	strbuf_addch(out, '\n');
	return 0;
}

static int attach_record_text(struct attacher *a, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	struct leafrec leaf;
	struct pair p;
	const struct leafrec *r = target_leaf(a, line, len, &leaf, &p);
	struct strbuf extra = STRBUF_INIT, name = STRBUF_INIT;
	struct sources *src;
	const struct stack *s = NULL;

	if (!r && check_object(line, len, err) < 0)
		return PROBE_ERR_LINE;
	if (!r || r->f[LF_DUMP].kind != SPAN_STRING)
		return 0;
	leafrec_str(r, LF_DUMP, &a->scratch);
	leafrec_str(r, LF_ENTRY, &a->name);
	leafrec_str(r, LF_NAME, &name);
	if (sources_of(a, a->scratch.buf, &src, err) < 0) {
		strbuf_release(&extra);
		strbuf_release(&name);
		return PROBE_ERR;
	}
	if (src->stacks) {
		s = stack_map_get(src->stacks, a->name.buf, a->name.len);
		if (!s && naming_forward_entry(a->name.buf, &extra))
			s = stack_map_get(src->stacks, extra.buf, extra.len);
	}
	/* a line for people: the names and frames with their control characters made visible (textesc.h) */
	text_escape(out, name.buf, name.len, 0);
	if (!s)
		strbuf_addstr(out, ": (no stack)");
	for (size_t i = 0; s && i < s->n; i++) {
		struct frame f;
		if (stack_frame_parse(s->frames[i], &f) &&
		    !stack_frame_is_framework(&f, a->opts.framework, a->opts.nframework)) {
			strbuf_addstr(out, ": ");
			text_escape(out, f.file, f.file_len, 0);
			strbuf_addf(out, ":%ld in ", f.line);
			text_escape(out, f.function ? f.function : "", f.function ? f.function_len : 0, 0);
			strbuf_addstr(out, ": ");
			text_escape(out, f.code ? f.code : "", f.code ? f.code_len : 0, 0);
			break;
		}
		if (i + 1 == s->n)
			strbuf_addstr(out, ": (no frame of the user's code)");
	}
	strbuf_addch(out, '\n');
	strbuf_release(&extra);
	strbuf_release(&name);
	return 0;
}

static int sink_add_record(void *a, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	return attach_record(a, line, len, out, err);
}

static int sink_add_text(void *a, const char *line, size_t len, struct strbuf *out, struct strbuf *err)
{
	return attach_record_text(a, line, len, out, err);
}

struct line_sink attach_sink(struct attacher *a, bool text)
{
	return (struct line_sink){ .ctx = a, .add = text ? sink_add_text : sink_add_record };
}

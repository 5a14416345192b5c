#include "xlsxr.h"
#include "msg.h"
#include "source.h"
#include "textesc.h"
#include "xalloc.h"

#include <expat.h>
#include <minizip/unzip.h>
#include <sys/stat.h>
#include <zlib.h>

enum {
	CHUNK = 64 << 10,     /* bytes inflated at a time */
	MAX_DEPTH = 256,      /* elements nested */
	MAX_NAME_IN_ZIP = 255, /* what unzLocateFile() accepts */
	SHOWN = 40,           /* bytes of a bad value quoted in a message */
};
#define MAX_SMALL_PART ((uint64_t)64 << 20) /* workbook.xml and its relationships */
#define MAX_QUIET ((uint64_t)64 << 20)      /* bytes fed to expat without an event: one token */

struct sheet {
	char *name;
	char *rid;
	char *part; /* its member in the zip */
};

struct xlsxr {
	char *path;
	unzFile zip;
	struct sheet *sheets;
	size_t nsheets, sheets_alloc;
	struct strbuf shared;  /* the shared strings, each followed by a NUL */
	size_t *shared_at;     /* where each starts in shared */
	size_t nshared, shared_alloc;
	bool busy;             /* in xlsxr_read_sheet() */
	uint64_t max_inflate;  /* zip_inflate_limit() of the workbook's size */
	uint64_t inflated;     /* bytes inflated so far, all parts together */
	uint64_t size;         /* the workbook's, in bytes */
};

/* ---------------------------------------------------------------- the inflation bound */

int zip_inflate_limit(uint64_t file_size, uint64_t *max, struct strbuf *err)
{
	const char *env = getenv("PROBE_MAX_INFLATE"), *p;
	uint64_t v = 0, unit = 1;
	if (env && *env) {
		for (p = env; *p >= '0' && *p <= '9'; p++) {
			if (v > (UINT64_MAX - 9) / 10)
				goto too_large;
			v = v * 10 + (uint64_t)(*p - '0');
		}
		switch (*p) {
		case 'K': case 'k': unit = (uint64_t)1 << 10; p++; break;
		case 'M': case 'm': unit = (uint64_t)1 << 20; p++; break;
		case 'G': case 'g': unit = (uint64_t)1 << 30; p++; break;
		default: break;
		}
		if (p == env || *p || !v) {
			strbuf_addf(err, "PROBE_MAX_INFLATE=%s: not a size in bytes (a whole number above 0, "
				    "optionally followed by K, M or G)", env);
			return -1;
		}
		if (v > UINT64_MAX / unit)
			goto too_large;
		*max = v * unit;
		return 0;
	}
	*max = file_size > ZIP_INFLATE_MIN / ZIP_INFLATE_RATIO ? file_size * ZIP_INFLATE_RATIO : ZIP_INFLATE_MIN;
	if (file_size > UINT64_MAX / ZIP_INFLATE_RATIO)
		*max = UINT64_MAX;
	return 0;
too_large:
	strbuf_addf(err, "PROBE_MAX_INFLATE=%s: too large", env);
	return -1;
}

/* ---------------------------------------------------------------- parts */

/* "PATH: what" */
static int fail(const struct xlsxr *x, struct strbuf *err, const char *fmt, ...) PRINTF_LIKE(3, 4);
static int fail(const struct xlsxr *x, struct strbuf *err, const char *fmt, ...)
{
	va_list ap;
	strbuf_addf(err, "%s: ", x->path);
	va_start(ap, fmt);
	strbuf_vaddf(err, fmt, ap);
	va_end(ap);
	return PROBE_ERR;
}

/* Whether the zip has a member of that name (part names compare without case, as OPC says). */
static bool part_exists(struct xlsxr *x, const char *part)
{
	return strlen(part) <= MAX_NAME_IN_ZIP && unzLocateFile(x->zip, part, 2) == UNZ_OK;
}

/*
 * The size a zip64 entry declares, from its extra field: the minizip of
 * Debian 12 compares the 32-bit size with (unsigned long)-1 and never
 * reads it on a 64-bit system, leaving 0xFFFFFFFF.
 */
static uint64_t zip64_size(struct xlsxr *x, const unz_file_info64 *info)
{
	uint64_t size = info->uncompressed_size;
	size_t n = info->size_file_extra;
	unsigned char *extra;
	if (size != 0xFFFFFFFFu || !n)
		return size;
	extra = xmalloc(n);
	if (unzGetCurrentFileInfo64(x->zip, NULL, NULL, 0, extra, (uLong)n, NULL, 0) == UNZ_OK) {
		for (size_t at = 0; at + 4 <= n;) {
			unsigned id = extra[at] | (unsigned)extra[at + 1] << 8;
			size_t len = extra[at + 2] | (size_t)extra[at + 3] << 8;
			if (id == 1 && len >= 8 && at + 4 + 8 <= n) {
				size = 0;
				for (int i = 7; i >= 0; i--)
					size = size << 8 | extra[at + 4 + i];
				break;
			}
			at += 4 + len;
		}
	}
	free(extra);
	return size;
}

/*
 * Make part the member being read, checked before a byte of it is
 * inflated: at most max bytes (max_text in messages).  1 when there is
 * no such member, 0 with its declared size and CRC in *size and *crc, -1
 * with err set.
 */
static int part_open(struct xlsxr *x, const char *part, uint64_t max, const char *max_text, uint64_t *size,
		     uint32_t *crc, struct strbuf *err)
{
	unz_file_info64 info;
	uint64_t declared;
	if (!part_exists(x, part))
		return 1;
	if (unzGetCurrentFileInfo64(x->zip, &info, NULL, 0, NULL, 0, NULL, 0) != UNZ_OK)
		return fail(x, err, "%s: its zip directory entry cannot be read", part);
	if (info.flag & 1)
		return fail(x, err, "%s: encrypted, which workbooks are not", part);
	if (info.compression_method != 0 && info.compression_method != Z_DEFLATED)
		return fail(x, err, "%s: compressed with zip method %lu (only stored and deflated are read)",
			    part, (unsigned long)info.compression_method);
	declared = zip64_size(x, &info);
	if (declared > max)
		return fail(x, err, "%s: declared to inflate to %llu bytes, more than the %s allowed",
			    part, (unsigned long long)declared, max_text);
	/* sheets are streamed (and may be read again): each alone; the parts held, together */
	if (declared > x->max_inflate || (!x->busy && x->inflated > x->max_inflate - declared))
		return fail(x, err, "%s: inflates to %llu bytes, which with the %llu already read is more than the "
			    "%llu bytes allowed for this workbook (64 times its size, at least 64 MiB; "
			    "PROBE_MAX_INFLATE raises the limit)", part, (unsigned long long)declared,
			    (unsigned long long)x->inflated, (unsigned long long)x->max_inflate);
	if (unzOpenCurrentFile(x->zip) != UNZ_OK)
		return fail(x, err, "%s: cannot be read (a damaged zip)", part);
	*size = declared;
	*crc = (uint32_t)info.crc;
	return 0;
}

/* ---------------------------------------------------------------- one XML part, streaming */

/*
 * A pass over one part: expat's handlers below keep the depth, the
 * guards and the first error, and call the pass's own start, end and
 * text with the element's name stripped of its prefix.  start returns a
 * role (0: none) that end gets back, so that a pass counts only the
 * elements it recognised.
 */
struct xmlpass {
	struct xlsxr *x;
	const char *part;
	XML_Parser p;
	struct strbuf *err;
	int status;       /* 0: going on; -1: failed (err set); 1: stopped by the row function */
	unsigned depth;
	uint64_t quiet;   /* bytes fed since expat last reported anything */
	uint64_t size;    /* what the zip entry declares: bytes and their CRC */
	uint32_t crc;
	unsigned char role[MAX_DEPTH + 1];
	int (*start)(struct xmlpass *xp, const char *name, const char **atts);
	void (*end)(struct xmlpass *xp, int role);
	void (*text)(struct xmlpass *xp, const char *s, size_t len);
};

static void pass_stop(struct xmlpass *xp, int status)
{
	if (!xp->status) {
		xp->status = status;
		XML_StopParser(xp->p, XML_FALSE);
	}
}

/* "PATH: PART:LINE: what", and the parser stopped. */
static void pass_fail(struct xmlpass *xp, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void pass_fail(struct xmlpass *xp, const char *fmt, ...)
{
	va_list ap;
	if (xp->status)
		return;
	strbuf_addf(xp->err, "%s: %s:%lu: ", xp->x->path, xp->part, (unsigned long)XML_GetCurrentLineNumber(xp->p));
	va_start(ap, fmt);
	strbuf_vaddf(xp->err, fmt, ap);
	va_end(ap);
	pass_stop(xp, -1);
}

static const char *local_name(const char *name)
{
	const char *colon = strrchr(name, ':');
	return colon ? colon + 1 : name;
}

/* The attribute of that local name (namespace declarations are not attributes here). */
static const char *attr(const char **atts, const char *want)
{
	for (size_t i = 0; atts[i] && atts[i + 1]; i += 2) {
		if (!strncmp(atts[i], "xmlns", 5) && (atts[i][5] == '\0' || atts[i][5] == ':'))
			continue;
		if (!strcmp(local_name(atts[i]), want))
			return atts[i + 1];
	}
	return NULL;
}

static void XMLCALL on_start(void *data, const XML_Char *name, const XML_Char **atts)
{
	struct xmlpass *xp = data;
	int role = 0;
	xp->quiet = 0;
	if (xp->status)
		return;
	if (xp->depth >= MAX_DEPTH) {
		pass_fail(xp, "elements nested deeper than %d", MAX_DEPTH);
		return;
	}
	if (xp->start)
		role = xp->start(xp, local_name(name), atts);
	xp->role[++xp->depth] = (unsigned char)role;
}

static void XMLCALL on_end(void *data, const XML_Char *name)
{
	struct xmlpass *xp = data;
	xp->quiet = 0;
	if (xp->status || !xp->depth)
		return;
	if (xp->end && xp->role[xp->depth])
		xp->end(xp, xp->role[xp->depth]);
	xp->depth--;
}

static void XMLCALL on_text(void *data, const XML_Char *s, int len)
{
	struct xmlpass *xp = data;
	xp->quiet = 0;
	if (!xp->status && xp->text && len > 0)
		xp->text(xp, s, (size_t)len);
}

/* Comments, processing instructions, the XML declaration: only seen. */
static void XMLCALL on_other(void *data, const XML_Char *s, int len)
{
	struct xmlpass *xp = data;
	xp->quiet = 0;
}

static void XMLCALL on_doctype(void *data, const XML_Char *name, const XML_Char *sysid,
			       const XML_Char *pubid, int has_internal_subset)
{
	pass_fail(data, "a document type declaration, which workbooks do not have (refused: entities)");
}

static void pass_xml_error(struct xmlpass *xp)
{
	enum XML_Error e = XML_GetErrorCode(xp->p);
	pass_fail(xp, "%s", XML_ErrorString(e) ? XML_ErrorString(e) : "malformed XML");
}

/*
 * The end of the member: all its declared bytes came out, and their CRC
 * is right (checked here too: minizip does not when it misread a zip64
 * size, see zip64_size()).
 */
static int part_finish(struct xmlpass *xp, uint64_t got, uint32_t crc)
{
	struct xlsxr *x = xp->x;
	int rc = unzCloseCurrentFile(x->zip);
	if (got != xp->size)
		return fail(x, xp->err, "%s: ends after %llu of the %llu bytes its zip entry declares",
			    xp->part, (unsigned long long)got, (unsigned long long)xp->size);
	if (rc == UNZ_CRCERROR || crc != xp->crc)
		return fail(x, xp->err, "%s: its CRC does not match (a damaged zip)", xp->part);
	if (rc != UNZ_OK)
		return fail(x, xp->err, "%s: cannot be read to its end (a damaged zip)", xp->part);
	return 0;
}

/*
 * Inflate the member part_open() made current, chunk by chunk, through
 * expat.  0 at its end, 1 when the pass stopped early, -1 with err set.
 */
static int pass_run(struct xmlpass *xp)
{
	struct xlsxr *x = xp->x;
	char *buf = xmalloc(CHUNK);
	uint64_t got = 0;
	uLong crc = crc32(0, Z_NULL, 0);
	bool closed = false;
	if (!(xp->p = XML_ParserCreate(NULL))) {
		free(buf);
		unzCloseCurrentFile(x->zip);
		return fail(x, xp->err, "%s: cannot create an XML parser", xp->part);
	}
	XML_SetUserData(xp->p, xp);
	XML_SetElementHandler(xp->p, on_start, on_end);
	XML_SetCharacterDataHandler(xp->p, on_text);
	XML_SetDefaultHandlerExpand(xp->p, on_other);
	XML_SetStartDoctypeDeclHandler(xp->p, on_doctype);
	while (!xp->status) {
		int n = unzReadCurrentFile(x->zip, buf, CHUNK);
		if (n < 0) {
			fail(x, xp->err, "%s: cannot be inflated (a damaged zip, error %d)", xp->part, n);
			xp->status = -1;
			break;
		}
		got += (uint64_t)n;
		if (!x->busy)
			x->inflated += (uint64_t)n;
		if (got > xp->size) {
			fail(x, xp->err, "%s: inflates to more than the %llu bytes its zip entry declares",
			     xp->part, (unsigned long long)xp->size);
			xp->status = -1;
			break;
		}
		crc = crc32(crc, (const Bytef *)buf, (uInt)n);
		if (n == 0) {
			closed = true;
			if (part_finish(xp, got, (uint32_t)crc) < 0) {
				xp->status = -1;
				break;
			}
		}
		if (XML_Parse(xp->p, buf, n, n == 0) == XML_STATUS_ERROR) {
			pass_xml_error(xp); /* nothing when a handler stopped it */
			break;
		}
		xp->quiet += (uint64_t)n;
		if (xp->quiet > MAX_QUIET)
			pass_fail(xp, "an XML token longer than %llu MiB", (unsigned long long)(MAX_QUIET >> 20));
		if (n == 0)
			break;
	}
	if (!closed)
		unzCloseCurrentFile(x->zip);
	XML_ParserFree(xp->p);
	xp->p = NULL;
	free(buf);
	return xp->status;
}

/* ---------------------------------------------------------------- xl/workbook.xml */

static int workbook_start(struct xmlpass *xp, const char *name, const char **atts)
{
	struct xlsxr *x = xp->x;
	const char *sname, *rid;
	struct sheet *s;
	if (strcmp(name, "sheet"))
		return 0;
	sname = attr(atts, "name");
	rid = attr(atts, "id");
	if (!sname || !rid) {
		pass_fail(xp, "a sheet without a name or an r:id");
		return 0;
	}
	ALLOC_GROW(x->sheets, x->nsheets + 1, x->sheets_alloc);
	s = &x->sheets[x->nsheets++];
	s->name = xstrdup(sname);
	s->rid = xstrdup(rid);
	s->part = NULL;
	return 0;
}

/* ---------------------------------------------------------------- xl/_rels/workbook.xml.rels */

struct rel {
	char *id;
	char *target;
	char *type;
	bool external;
};

struct rels_pass {
	struct xmlpass xp;
	struct rel *rels;
	size_t n, alloc;
};

static int rels_start(struct xmlpass *xp, const char *name, const char **atts)
{
	struct rels_pass *rp = (struct rels_pass *)xp;
	const char *id, *target, *type, *mode;
	struct rel *r;
	if (strcmp(name, "Relationship"))
		return 0;
	id = attr(atts, "Id");
	target = attr(atts, "Target");
	type = attr(atts, "Type");
	mode = attr(atts, "TargetMode");
	if (!id || !target) {
		pass_fail(xp, "a relationship without an Id or a Target");
		return 0;
	}
	ALLOC_GROW(rp->rels, rp->n + 1, rp->alloc);
	r = &rp->rels[rp->n++];
	r->id = xstrdup(id);
	r->target = xstrdup(target);
	r->type = xstrdup(type ? type : "");
	r->external = mode && !strcmp(mode, "External");
	return 0;
}

static void rels_release(struct rels_pass *rp)
{
	for (size_t i = 0; i < rp->n; i++) {
		free(rp->rels[i].id);
		free(rp->rels[i].target);
		free(rp->rels[i].type);
	}
	free(rp->rels);
}

static const struct rel *rel_by_id(const struct rels_pass *rp, const char *id)
{
	for (size_t i = 0; i < rp->n; i++)
		if (!strcmp(rp->rels[i].id, id))
			return &rp->rels[i];
	return NULL;
}

static const struct rel *rel_by_type(const struct rels_pass *rp, const char *suffix)
{
	size_t sn = strlen(suffix);
	for (size_t i = 0; i < rp->n; i++) {
		size_t n = strlen(rp->rels[i].type);
		if (n >= sn && !strcmp(rp->rels[i].type + n - sn, suffix) && !rp->rels[i].external)
			return &rp->rels[i];
	}
	return NULL;
}

/*
 * The member a target of workbook.xml's relationships names: relative to
 * xl/, or from the package's root when it starts with '/'; "." and ".."
 * segments resolved (".." never climbs above the root).
 */
static char *part_of_target(const char *target)
{
	struct strbuf sb = STRBUF_INIT;
	const char *p = target;
	if (*p == '/')
		p++;
	else
		strbuf_addstr(&sb, "xl/");
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			size_t keep = sb.len ? sb.len - 1 : 0;
			while (keep && sb.buf[keep - 1] != '/')
				keep--;
			strbuf_setlen(&sb, keep);
		} else if (n && !(n == 1 && p[0] == '.')) {
			strbuf_add(&sb, p, n);
			strbuf_addch(&sb, '/');
		}
		p += n + (slash != NULL);
	}
	if (sb.len)
		strbuf_setlen(&sb, sb.len - 1);
	return strbuf_detach(&sb, NULL);
}

/* ---------------------------------------------------------------- the shared strings */

enum { SI = 1, SI_T, SI_RPH };

struct shared_pass {
	struct xmlpass xp;
	unsigned in_si, in_t, in_rph;
};

static size_t shared_max(const struct xlsxr *x)
{
	return x->max_inflate < XLSXR_MAX_SHARED ? (size_t)x->max_inflate : XLSXR_MAX_SHARED;
}

static bool shared_fits(struct xlsxr *x, size_t more)
{
	size_t index = x->nshared * sizeof(*x->shared_at), max = shared_max(x);
	return x->shared.len <= max && index <= max - x->shared.len && more <= max - x->shared.len - index;
}

static int shared_start(struct xmlpass *xp, const char *name, const char **atts)
{
	struct shared_pass *sp = (struct shared_pass *)xp;
	struct xlsxr *x = xp->x;
	if (!strcmp(name, "si")) {
		if (sp->in_si) {
			pass_fail(xp, "a shared string inside a shared string");
			return 0;
		}
		if (!shared_fits(x, sizeof(*x->shared_at) + 1)) {
			pass_fail(xp, "more than %zu bytes of shared strings and their index (PROBE_MAX_INFLATE raises the limit)",
				  shared_max(x));
			return 0;
		}
		ALLOC_GROW(x->shared_at, x->nshared + 1, x->shared_alloc);
		x->shared_at[x->nshared++] = x->shared.len;
		sp->in_si++;
		return SI;
	}
	if (!sp->in_si)
		return 0;
	if (!strcmp(name, "t")) {
		sp->in_t++;
		return SI_T;
	}
	if (!strcmp(name, "rPh")) {
		sp->in_rph++;
		return SI_RPH;
	}
	return 0;
}

static void shared_end(struct xmlpass *xp, int role)
{
	struct shared_pass *sp = (struct shared_pass *)xp;
	if (role == SI) {
		strbuf_addch(&xp->x->shared, '\0');
		sp->in_si--;
	} else if (role == SI_T) {
		sp->in_t--;
	} else if (role == SI_RPH) {
		sp->in_rph--;
	}
}

static void shared_text(struct xmlpass *xp, const char *s, size_t len)
{
	struct shared_pass *sp = (struct shared_pass *)xp;
	struct xlsxr *x = xp->x;
	if (!sp->in_t || sp->in_rph)
		return;
	if (!shared_fits(x, len + 1)) {
		pass_fail(xp, "more than %zu bytes of shared strings and their index (PROBE_MAX_INFLATE raises the limit)",
				  shared_max(x));
		return;
	}
	strbuf_add(&x->shared, s, len);
}

static const char *shared_string(const struct xlsxr *x, size_t i, size_t *len)
{
	size_t end = i + 1 < x->nshared ? x->shared_at[i + 1] : x->shared.len;
	*len = end - x->shared_at[i] - 1;
	return x->shared.buf + x->shared_at[i];
}

/* ---------------------------------------------------------------- opening */

/* Run a pass over a part that must be there (what = why it must, for the message). */
static int read_part(struct xmlpass *xp, bool big, bool required, const char *what)
{
	int rc = part_open(xp->x, xp->part, big ? XLSXR_MAX_PART : MAX_SMALL_PART, big ? "4 GiB" : "64 MiB",
			   &xp->size, &xp->crc, xp->err);
	if (rc < 0)
		return -1;
	if (rc > 0)
		return required ? fail(xp->x, xp->err, "no %s: %s", xp->part, what) : 1;
	return pass_run(xp) < 0 ? -1 : 0;
}

static int read_workbook(struct xlsxr *x, struct strbuf *err)
{
	struct xmlpass xp = { .x = x, .part = "xl/workbook.xml", .err = err, .start = workbook_start };
	return read_part(&xp, false, true, "not an .xlsx workbook");
}

/* The part of sheet s, from the relationships. */
static int find_sheet_part(struct xlsxr *x, const struct rels_pass *rp, struct sheet *s, struct strbuf *err)
{
	const struct rel *r = rel_by_id(rp, s->rid);
	char *part;
	if (!r)
		return fail(x, err, "sheet '%s': no relationship %s in %s", s->name, s->rid, rp->xp.part);
	if (r->external)
		return fail(x, err, "sheet '%s': its relationship %s points outside the workbook", s->name, s->rid);
	part = part_of_target(r->target);
	s->part = part;
	if (!part_exists(x, part))
		return fail(x, err, "sheet '%s': its part %s is missing", s->name, part);
	return 0;
}

/*
 * Each sheet's part, from the relationships.  Returns the shared
 * strings' part (the caller frees it; it may be absent when no
 * relationship names it), NULL with err set.
 */
static char *find_parts(struct xlsxr *x, struct strbuf *err)
{
	struct rels_pass rp = { .xp = { .x = x, .part = "xl/_rels/workbook.xml.rels", .err = err, .start = rels_start } };
	const struct rel *r;
	char *shared = NULL;
	int rc = read_part(&rp.xp, false, true, "the workbook's sheets cannot be found");
	for (size_t i = 0; !rc && i < x->nsheets; i++)
		rc = find_sheet_part(x, &rp, &x->sheets[i], err);
	if (!rc) {
		r = rel_by_type(&rp, "/sharedStrings");
		shared = part_of_target(r ? r->target : "sharedStrings.xml");
		if (r && !part_exists(x, shared)) {
			fail(x, err, "the shared strings' part %s is missing", shared);
			free(shared);
			shared = NULL;
		}
	}
	rels_release(&rp);
	return shared;
}

static int read_shared(struct xlsxr *x, const char *part, struct strbuf *err)
{
	struct shared_pass sp = { .xp = { .x = x, .part = part, .err = err, .start = shared_start,
					  .end = shared_end, .text = shared_text } };
	return read_part(&sp.xp, true, false, "") < 0 ? -1 : 0;
}

/* Say what is wrong with a file minizip cannot open. */
static int check_file(struct xlsxr *x, struct strbuf *err)
{
	struct stat st;
	FILE *f;
	if (!stat(x->path, &st) && S_ISDIR(st.st_mode))
		return fail(x, err, "a directory, not an .xlsx workbook");
	/* a regular file only: minizip's open of a FIFO would wait for a writer for ever */
	if (!(f = source_fopen_regular(x->path, err)))
		return -1;
	if (fstat(fileno(f), &st) < 0) {
		int e = errno;
		fclose(f);
		return fail(x, err, "cannot open: %s", strerror(e));
	}
	fclose(f);
	if (!st.st_size)
		return fail(x, err, "an empty file, not an .xlsx workbook");
	x->size = (uint64_t)st.st_size;
	return 0;
}

struct xlsxr *xlsxr_open(const char *path, struct strbuf *err)
{
	struct xlsxr *x = xcalloc(1, sizeof(*x));
	struct strbuf why = STRBUF_INIT;
	char *shared = NULL;
	x->path = xstrdup(path);
	strbuf_init(&x->shared, 0);
	if (check_file(x, err) < 0)
		goto fail;
	if (!(x->zip = unzOpen64(path))) {
		fail(x, err, "not a zip file, so not an .xlsx workbook (or a damaged one)");
		goto fail;
	}
	if (zip_inflate_limit(x->size, &x->max_inflate, &why) < 0) {
		fail(x, err, "%s", why.buf);
		goto fail;
	}
	if (read_workbook(x, err) < 0 || !(shared = find_parts(x, err)) || read_shared(x, shared, err) < 0)
		goto fail;
	free(shared);
	strbuf_release(&why);
	return x;
fail:
	strbuf_release(&why);
	free(shared);
	xlsxr_close(x);
	return NULL;
}

size_t xlsxr_nsheets(const struct xlsxr *x)
{
	return x->nsheets;
}

const char *xlsxr_sheet_name(const struct xlsxr *x, size_t i)
{
	return i < x->nsheets ? x->sheets[i].name : NULL;
}

void xlsxr_close(struct xlsxr *x)
{
	if (!x)
		return;
	if (x->zip)
		unzClose(x->zip);
	for (size_t i = 0; i < x->nsheets; i++) {
		free(x->sheets[i].name);
		free(x->sheets[i].rid);
		free(x->sheets[i].part);
	}
	free(x->sheets);
	strbuf_release(&x->shared);
	free(x->shared_at);
	free(x->path);
	free(x);
}

/* ---------------------------------------------------------------- a sheet */

enum { R_DATA = 1, R_ROW, R_CELL, R_V, R_IS, R_T, R_RPH };

/* The t attribute of a cell. */
enum kind { K_NUMBER, K_SHARED, K_INLINE, K_STR, K_BOOL, K_ERROR, K_DATE };

/* A cell of the row being read; its text is at off in the row's text, or ext. */
struct cellrec {
	uint32_t col;
	enum xlsxr_type type;
	const char *ext;
	size_t off, len;
	double num;
	bool is_int, b;
};

struct sheet_pass {
	struct xmlpass xp;
	xlsxr_row_fn *fn;
	void *ctx;
	unsigned in_data, in_row, in_cell, in_v, in_is, in_t, in_rph;
	bool have_row;
	uint32_t row;      /* 0-based */
	uint32_t next_col; /* of the row: after its last cell */
	/* the cell */
	uint32_t col;
	enum kind kind;
	bool has_v, has_is;
	struct strbuf v, is;
	/* the row */
	struct cellrec *cells;
	size_t ncells, cells_alloc;
	struct strbuf text;
	struct xlsxr_cell *out;
	size_t out_alloc;
};

/* Column 0 is "A", 16383 "XFD" (and a column past 26^4 is not asked for). */
static void col_name(uint32_t col, char name[8])
{
	char rev[4];
	size_t n = 0;
	col++;
	while (col && n < sizeof(rev)) {
		rev[n++] = (char)('A' + (col - 1) % 26);
		col = (col - 1) / 26;
	}
	for (size_t i = 0; i < n; i++)
		name[i] = rev[n - 1 - i];
	name[n] = '\0';
}

/* The cell's reference, for messages: "B7". */
static const char *cell_ref(const struct sheet_pass *sp, char buf[32])
{
	char col[8];
	col_name(sp->col, col);
	snprintf(buf, 32, "%s%lu", col, (unsigned long)sp->row + 1);
	return buf;
}

/* A decimal 1..max into *out, 0-based; false when it is not one. */
static bool parse_index1(const char *s, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return false;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return false;
	}
	if (!v)
		return false;
	*out = (uint32_t)(v - 1);
	return true;
}

/* "B7" into 0-based column and row; false when it is not a reference within the sheet's bounds. */
static bool parse_ref(const char *s, uint32_t *col, uint32_t *row)
{
	uint32_t c = 0;
	size_t letters = 0;
	for (; *s >= 'A' && *s <= 'Z'; s++) {
		if (++letters > 3)
			return false;
		c = c * 26 + (uint32_t)(*s - 'A' + 1);
	}
	if (!letters || c > XLSXR_MAX_COLS)
		return false;
	*col = c - 1;
	return parse_index1(s, XLSXR_MAX_ROWS, row);
}

/* A bad value quoted in a message, cut short. */
static void add_shown(struct strbuf *sb, const char *s, size_t len)
{
	text_quote_cut(sb, s, len, SHOWN);
}

static void cell_fail(struct sheet_pass *sp, const char *what, const struct strbuf *value)
{
	struct strbuf shown = STRBUF_INIT;
	char ref[32];
	if (value)
		add_shown(&shown, value->buf, value->len);
	pass_fail(&sp->xp, "cell %s: %s%s%s", cell_ref(sp, ref), what, value ? " " : "", shown.buf);
	strbuf_release(&shown);
}

static void row_start(struct sheet_pass *sp, const char **atts)
{
	const char *r = attr(atts, "r");
	uint32_t row;
	if (sp->in_row) {
		pass_fail(&sp->xp, "a row inside a row");
		return;
	}
	if (r) {
		if (!parse_index1(r, XLSXR_MAX_ROWS, &row)) {
			pass_fail(&sp->xp, "bad row number '%.40s' (rows are 1 to %u)", r, XLSXR_MAX_ROWS);
			return;
		}
	} else {
		row = sp->have_row ? sp->row + 1 : 0;
		if (row >= XLSXR_MAX_ROWS) {
			pass_fail(&sp->xp, "a row after row %u, the last there can be", XLSXR_MAX_ROWS);
			return;
		}
	}
	if (sp->have_row && row <= sp->row) {
		pass_fail(&sp->xp, "row %lu after row %lu: rows out of order or repeated",
			  (unsigned long)row + 1, (unsigned long)sp->row + 1);
		return;
	}
	sp->row = row;
	sp->have_row = true;
	sp->in_row++;
	sp->next_col = 0;
	sp->ncells = 0;
	strbuf_reset(&sp->text);
}

static bool parse_kind(const char *t, enum kind *kind)
{
	static const struct {
		const char *name;
		enum kind kind;
	} kinds[] = {
		{ "n", K_NUMBER }, { "s", K_SHARED }, { "inlineStr", K_INLINE }, { "str", K_STR },
		{ "b", K_BOOL }, { "e", K_ERROR }, { "d", K_DATE },
	};
	if (!t) {
		*kind = K_NUMBER;
		return true;
	}
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		if (!strcmp(t, kinds[i].name)) {
			*kind = kinds[i].kind;
			return true;
		}
	}
	return false;
}

static void cell_start(struct sheet_pass *sp, const char **atts)
{
	const char *r = attr(atts, "r"), *t = attr(atts, "t");
	uint32_t col, row;
	char want[32], got[8];
	if (!sp->in_row) {
		pass_fail(&sp->xp, "a cell outside a row");
		return;
	}
	if (sp->in_cell) {
		pass_fail(&sp->xp, "a cell inside a cell");
		return;
	}
	if (r) {
		if (!parse_ref(r, &col, &row)) {
			pass_fail(&sp->xp, "bad cell reference '%.40s' (columns are A to XFD, rows 1 to %u)", r,
				  XLSXR_MAX_ROWS);
			return;
		}
		if (row != sp->row) {
			pass_fail(&sp->xp, "cell %.40s in row %lu", r, (unsigned long)sp->row + 1);
			return;
		}
	} else {
		col = sp->next_col;
		if (col >= XLSXR_MAX_COLS) {
			pass_fail(&sp->xp, "a cell after column XFD in row %lu", (unsigned long)sp->row + 1);
			return;
		}
	}
	if (col < sp->next_col) {
		col_name(sp->next_col - 1, got);
		sp->col = col;
		pass_fail(&sp->xp, "cell %s after column %s: cells out of order or repeated", cell_ref(sp, want), got);
		return;
	}
	sp->col = col;
	if (!parse_kind(t, &sp->kind)) {
		pass_fail(&sp->xp, "cell %s: unknown type '%.40s'", cell_ref(sp, want), t);
		return;
	}
	sp->in_cell++;
	sp->has_v = sp->has_is = false;
	strbuf_reset(&sp->v);
	strbuf_reset(&sp->is);
}

static int sheet_start(struct xmlpass *xp, const char *name, const char **atts)
{
	struct sheet_pass *sp = (struct sheet_pass *)xp;
	if (!strcmp(name, "sheetData")) {
		sp->in_data++;
		return R_DATA;
	}
	if (!sp->in_data)
		return 0;
	if (!strcmp(name, "row")) {
		row_start(sp, atts);
		return R_ROW;
	}
	if (!strcmp(name, "c")) {
		cell_start(sp, atts);
		return R_CELL;
	}
	if (!sp->in_cell)
		return 0;
	if (!strcmp(name, "v") && !sp->in_is) {
		sp->in_v++;
		sp->has_v = true;
		return R_V;
	}
	if (!strcmp(name, "is") && !sp->in_v) {
		sp->in_is++;
		sp->has_is = true;
		return R_IS;
	}
	if (!sp->in_is)
		return 0;
	if (!strcmp(name, "t")) {
		sp->in_t++;
		return R_T;
	}
	if (!strcmp(name, "rPh")) {
		sp->in_rph++;
		return R_RPH;
	}
	return 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Append s (without the white space around it when trim) to the row's text, NUL after. */
static void keep_text(struct sheet_pass *sp, struct cellrec *c, const struct strbuf *s, bool trim)
{
	const char *p = s->buf, *end = s->buf + s->len;
	if (trim) {
		while (p < end && is_space(*p))
			p++;
		while (end > p && is_space(end[-1]))
			end--;
	}
	c->off = sp->text.len;
	c->len = (size_t)(end - p);
	strbuf_add(&sp->text, p, c->len);
	strbuf_addch(&sp->text, '\0');
}

/* [+-]digits[.digits][(e|E)[+-]digits], ".5" and "1." too (what Python's float() reads, in ASCII) */
static bool number_text(const char *s, bool *is_int)
{
	size_t digits = 0;
	*is_int = true;
	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits++;
	if (*s == '.') {
		*is_int = false;
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits++;
	}
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		*is_int = false;
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (*s < '0' || *s > '9')
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return !*s;
}

static void cell_number(struct sheet_pass *sp, struct cellrec *c)
{
	const char *text;
	keep_text(sp, c, &sp->v, true);
	text = sp->text.buf + c->off;
	if (!c->len) {
		c->type = XLSXR_EMPTY;
		return;
	}
	if (!number_text(text, &c->is_int)) {
		cell_fail(sp, "bad number", &sp->v);
		return;
	}
	c->type = XLSXR_NUMBER;
	c->num = strtod(text, NULL);
}

static void cell_bool(struct sheet_pass *sp, struct cellrec *c)
{
	const char *text;
	keep_text(sp, c, &sp->v, true);
	text = sp->text.buf + c->off;
	if (!c->len) {
		c->type = XLSXR_EMPTY;
		return;
	}
	if (!strcmp(text, "1") || !strcmp(text, "true"))
		c->b = true;
	else if (!strcmp(text, "0") || !strcmp(text, "false"))
		c->b = false;
	else {
		cell_fail(sp, "bad boolean", &sp->v);
		return;
	}
	c->type = XLSXR_BOOL;
	c->ext = c->b ? "1" : "0";
	c->len = 1;
}

static void cell_shared(struct sheet_pass *sp, struct cellrec *c)
{
	const struct xlsxr *x = sp->xp.x;
	uint64_t i = 0;
	const char *text;
	keep_text(sp, c, &sp->v, true);
	text = sp->text.buf + c->off;
	if (!c->len) {
		c->type = XLSXR_EMPTY;
		return;
	}
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9' || i > UINT32_MAX) {
			cell_fail(sp, "bad shared string index", &sp->v);
			return;
		}
		i = i * 10 + (uint64_t)(*p - '0');
	}
	if (i >= x->nshared) {
		char ref[32];
		pass_fail(&sp->xp, "cell %s: shared string %llu out of range (the workbook has %zu)",
			  cell_ref(sp, ref), (unsigned long long)i, x->nshared);
		return;
	}
	strbuf_setlen(&sp->text, c->off);
	c->type = XLSXR_TEXT;
	c->ext = shared_string(x, (size_t)i, &c->len);
}

/* The cell's value: the text of <v> or <is> read by its type. */
static void cell_end(struct sheet_pass *sp)
{
	struct cellrec *c;
	ALLOC_GROW(sp->cells, sp->ncells + 1, sp->cells_alloc);
	c = &sp->cells[sp->ncells++];
	memset(c, 0, sizeof(*c));
	c->col = sp->col;
	c->type = XLSXR_EMPTY;
	sp->in_cell--;
	sp->next_col = sp->col + 1;
	switch (sp->kind) {
	case K_NUMBER:
		if (sp->has_v)
			cell_number(sp, c);
		break;
	case K_SHARED:
		if (sp->has_v)
			cell_shared(sp, c);
		break;
	case K_BOOL:
		if (sp->has_v)
			cell_bool(sp, c);
		break;
	case K_INLINE:
		if (sp->has_is || sp->has_v) {
			keep_text(sp, c, sp->has_is ? &sp->is : &sp->v, false);
			c->type = XLSXR_TEXT;
		}
		break;
	case K_STR:
	case K_DATE:
	case K_ERROR:
		if (sp->has_v) {
			keep_text(sp, c, &sp->v, false);
			c->type = sp->kind == K_ERROR ? XLSXR_ERROR : XLSXR_TEXT;
		}
		break;
	}
}

/* The row to the caller's function: its cells by column, gaps filled. */
static void row_end(struct sheet_pass *sp)
{
	size_t n = sp->ncells ? (size_t)sp->cells[sp->ncells - 1].col + 1 : 0;
	int rc;
	sp->in_row--;
	ALLOC_GROW(sp->out, n, sp->out_alloc);
	for (size_t i = 0; i < n; i++)
		sp->out[i] = (struct xlsxr_cell){ .type = XLSXR_EMPTY, .text = "" };
	for (size_t i = 0; i < sp->ncells; i++) {
		const struct cellrec *c = &sp->cells[i];
		struct xlsxr_cell *o = &sp->out[c->col];
		o->type = c->type;
		if (c->type != XLSXR_EMPTY) {
			o->text = c->ext ? c->ext : sp->text.buf + c->off;
			o->len = c->len;
		}
		o->num = c->num;
		o->is_int = c->is_int;
		o->b = c->b;
	}
	rc = sp->fn(sp->ctx, sp->row, sp->out, n, sp->xp.err);
	if (rc < 0) {
		if (!sp->xp.err->len)
			fail(sp->xp.x, sp->xp.err, "%s: reading stopped at row %lu", sp->xp.part,
			     (unsigned long)sp->row + 1);
		pass_stop(&sp->xp, -1);
	} else if (rc > 0) {
		pass_stop(&sp->xp, 1);
	}
}

static void sheet_end(struct xmlpass *xp, int role)
{
	struct sheet_pass *sp = (struct sheet_pass *)xp;
	switch (role) {
	case R_DATA:
		sp->in_data--;
		break;
	case R_ROW:
		row_end(sp);
		break;
	case R_CELL:
		cell_end(sp);
		break;
	case R_V:
		sp->in_v--;
		break;
	case R_IS:
		sp->in_is--;
		break;
	case R_T:
		sp->in_t--;
		break;
	case R_RPH:
		sp->in_rph--;
		break;
	}
}

static void sheet_text(struct xmlpass *xp, const char *s, size_t len)
{
	struct sheet_pass *sp = (struct sheet_pass *)xp;
	size_t used = sp->text.len + sp->v.len + sp->is.len;
	struct strbuf *to;
	if (sp->in_v)
		to = &sp->v;
	else if (sp->in_t && !sp->in_rph)
		to = &sp->is;
	else
		return;
	if (used > XLSXR_MAX_ROW_TEXT || len > XLSXR_MAX_ROW_TEXT - used) {
		pass_fail(xp, "more than %zu MiB of text in row %lu", XLSXR_MAX_ROW_TEXT >> 20,
			  (unsigned long)sp->row + 1);
		return;
	}
	strbuf_add(to, s, len);
}

int xlsxr_read_sheet(struct xlsxr *x, size_t i, xlsxr_row_fn *fn, void *ctx, struct strbuf *err)
{
	struct sheet_pass sp = { .xp = { .x = x, .err = err, .start = sheet_start, .end = sheet_end,
					 .text = sheet_text },
				 .fn = fn, .ctx = ctx };
	int rc;
	if (x->busy)
		return fail(x, err, "a sheet read from inside the reading of a sheet");
	if (i >= x->nsheets)
		return fail(x, err, "no sheet %zu (the workbook has %zu)", i, x->nsheets);
	sp.xp.part = x->sheets[i].part;
	strbuf_init(&sp.v, 0);
	strbuf_init(&sp.is, 0);
	strbuf_init(&sp.text, 0);
	x->busy = true;
	rc = read_part(&sp.xp, true, true, "the sheet's part is missing");
	x->busy = false;
	strbuf_release(&sp.v);
	strbuf_release(&sp.is);
	strbuf_release(&sp.text);
	free(sp.cells);
	free(sp.out);
	return rc < 0 ? -1 : 0;
}

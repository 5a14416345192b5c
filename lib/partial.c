#include "partial.h"
#include "xalloc.h"

#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

struct partial {
	char *tmp;
	char *final;
	atomic_bool pending;       /* tmp exists and is still to be renamed or removed */
	struct partial *next;      /* set before the node is published */
};

static _Atomic(struct partial *) head; /* newest first; read by the signal handler */
static void (*signal_hook)(int sig);
static bool initialised;

static void remove_pending(void)
{
	for (struct partial *p = atomic_load(&head); p; p = p->next)
		if (atomic_exchange(&p->pending, false))
			unlink(p->tmp);
}

static void on_exit_remove(void)
{
	remove_pending();
}

static void on_signal(int sig)
{
	int saved = errno;
	remove_pending();
	if (signal_hook)
		signal_hook(sig);
	/* end as the signal would have ended us: the parent sees how */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

void partial_init(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	if (initialised)
		return;
	initialised = true;
	atexit(on_exit_remove);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction sa, old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue; /* nohup and the like: stay immune */
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigemptyset(&sa.sa_mask);
		for (size_t j = 0; j < sizeof(sigs) / sizeof(sigs[0]); j++)
			sigaddset(&sa.sa_mask, sigs[j]);
		sigaddset(&sa.sa_mask, SIGPIPE); /* the hook's write into a closed pipe must not end us first */
		sigaction(sigs[i], &sa, NULL);
	}
	/* a file size limit (ulimit -f) is a write error with a message, like a full disk */
	signal(SIGXFSZ, SIG_IGN);
}

void partial_on_signal(void (*hook)(int sig))
{
	signal_hook = hook;
}

struct partial *partial_add(const char *tmp, const char *final)
{
	struct partial *p = xcalloc(1, sizeof(*p));
	partial_init();
	p->tmp = xstrdup(tmp);
	p->final = xstrdup(final);
	atomic_init(&p->pending, true);
	p->next = atomic_load(&head);
	atomic_store(&head, p);
	return p;
}

void partial_set_final(struct partial *p, const char *final)
{
	free(p->final);
	p->final = xstrdup(final);
}

int partial_commit(struct partial *p, struct strbuf *err)
{
	if (!atomic_load(&p->pending))
		return 0;
	if (rename(p->tmp, p->final) < 0) {
		strbuf_addf(err, "%s: cannot rename it to %s: %s", p->tmp, p->final, strerror(errno));
		partial_drop(p);
		return -1;
	}
	atomic_store(&p->pending, false);
	return 0;
}

void partial_drop(struct partial *p)
{
	if (atomic_exchange(&p->pending, false))
		unlink(p->tmp);
}

int partial_commit_all(struct strbuf *err)
{
	size_t n = 0, i = 0;
	struct partial *p, **v;
	int ret = 0;
	for (p = atomic_load(&head); p; p = p->next)
		n++;
	v = xmalloc((n ? n : 1) * sizeof(*v));
	for (p = atomic_load(&head); p; p = p->next)
		v[n - 1 - i++] = p;
	for (i = 0; i < n && !ret; i++)
		ret = partial_commit(v[i], err);
	free(v);
	return ret;
}
